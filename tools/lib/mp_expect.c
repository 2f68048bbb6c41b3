// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mp_expect.h"

static const char *const class_names[MP_EXPECT_NCLASSES] = {
	[MP_EXPECT_BASELINE] = "baseline",
	[MP_EXPECT_ISOLATION] = "isolation",
	[MP_EXPECT_RESILIENCY] = "resiliency",
	[MP_EXPECT_SCALE] = "scale",
};

static const char *const policy_names[MP_EXPECT_NPOLICIES] = {
	[MP_EXPECT_BOND] = "bond",
	[MP_EXPECT_ECMP] = "ecmp",
	[MP_EXPECT_DCQCN] = "dcqcn",
	[MP_EXPECT_AR] = "ar",
	[MP_EXPECT_AR_PLB] = "ar+plb",
	[MP_EXPECT_AR_PLB_CC] = "ar+plb+cc",
};

static const char *const op_names[] = {
	[MP_EXPECT_GE] = ">=", [MP_EXPECT_GT] = ">",
	[MP_EXPECT_LE] = "<=", [MP_EXPECT_LT] = "<",
	[MP_EXPECT_NEAR] = "~",
};
#define NOPS	(sizeof(op_names) / sizeof(op_names[0]))

const char *mp_expect_class_name(enum mp_expect_class cls)
{
	return cls < MP_EXPECT_NCLASSES ? class_names[cls] : "?";
}

const char *mp_expect_policy_name(enum mp_expect_policy policy)
{
	return policy < MP_EXPECT_NPOLICIES ? policy_names[policy] : "?";
}

const char *mp_expect_op_name(enum mp_expect_op op)
{
	return op < NOPS ? op_names[op] : "?";
}

static int name_index(const char *const *names, unsigned int n,
		      const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

int mp_expect_class_parse(const char *name)
{
	return name_index(class_names, MP_EXPECT_NCLASSES, name);
}

int mp_expect_policy_parse(const char *name)
{
	return name_index(policy_names, MP_EXPECT_NPOLICIES, name);
}

/* "a, b or c": the choices an error lists. */
static void list_names(char *buf, size_t len, const char *const *names,
		       unsigned int n)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s",
				!i ? "" : i + 1 == n ? " or " : ", ", names[i]);
}

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* The next word of @*s, spaces before it skipped; NULL at the end. */
static char *next_word(char **s)
{
	char *w = *s;

	while (*w && isspace((unsigned char)*w))
		w++;
	if (!*w)
		return NULL;
	*s = w;
	while (**s && !isspace((unsigned char)**s))
		(*s)++;
	if (**s)
		*(*s)++ = '\0';
	return w;
}

/* A finite number, the whole of @w (with a '%' after it if @pct). */
static bool parse_number(const char *w, double *v, bool *pct)
{
	char *end;

	errno = 0;
	*v = strtod(w, &end);
	if (end == w || errno || !isfinite(*v))
		return false;
	if (pct && *end == '%') {
		*pct = true;
		end++;
	}
	return !*end;
}

static bool figure_ok(const char *w)
{
	const char *c;

	if (!islower((unsigned char)*w))
		return false;
	for (c = w; *c; c++)
		if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) &&
		    *c != '_')
			return false;
	return c - w < MP_EXPECT_FIGURE_MAX;
}

static int parse_figure(const char *w, const char *const *const *by_class,
			struct mp_expect *e, char *err, size_t len)
{
	const char *const *figures = by_class ? by_class[e->cls] : NULL;
	size_t n = 0;
	char known[512];

	if (!figure_ok(w))
		return fail(err, len, "bad figure '%s': want a name of lower-case letters, digits and '_', such as permutation_goodput, under %d characters",
			    w, MP_EXPECT_FIGURE_MAX);
	if (figures) {
		while (figures[n] && strcmp(figures[n], w))
			n++;
		if (!figures[n]) {
			for (n = 0; figures[n]; n++)
				;
			list_names(known, sizeof(known), figures, n);
			return fail(err, len, "%s has no figure '%s' (its figures: %s)",
				    mp_expect_class_name(e->cls), w, known);
		}
	}
	strcpy(e->figure, w);
	return 0;
}

/* "OP VALUE" or "~ VALUE TOL", from @rest on. */
static int parse_test(char *rest, struct mp_expect *e, char *err, size_t len)
{
	char *op = next_word(&rest), *value = next_word(&rest), *tol, ops[32];
	int i;

	list_names(ops, sizeof(ops), op_names, NOPS);
	if (!op)
		return fail(err, len, "no test after the figure: want one of %s, then a number", ops);
	i = name_index(op_names, NOPS, op);
	if (i < 0)
		return fail(err, len, "bad test '%s': want one of %s", op, ops);
	e->op = i;
	if (!value || !parse_number(value, &e->value, NULL))
		return fail(err, len, "bad value '%s' after '%s': want a number",
			    value ? value : "", op);
	tol = next_word(&rest);
	if (e->op == MP_EXPECT_NEAR) {
		if (!tol || !parse_number(tol, &e->tolerance, &e->tolerance_pct) ||
		    e->tolerance < 0)
			return fail(err, len, "bad tolerance '%s' after '~ %s': want a number or a percentage, such as 0.05 or 5%%",
				    tol ? tol : "", value);
		if (e->tolerance_pct)
			e->tolerance /= 100;
		tol = next_word(&rest);
	}
	if (tol)
		return fail(err, len, "'%s' after the test: one expectation a line", tol);
	return 0;
}

int mp_expect_parse_line(const char *line, const char *const *const *figures,
			 struct mp_expect *e, char *err, size_t errlen)
{
	char buf[512], cls_list[64], pol_list[128], *rest = buf, *w;
	int i;

	if (strlen(line) >= sizeof(buf))
		return fail(err, errlen, "longer than %zu characters", sizeof(buf) - 1);
	strcpy(buf, line);
	w = strchr(buf, '#');
	if (w)
		*w = '\0';
	w = next_word(&rest);
	if (!w)
		return 0;
	*e = (struct mp_expect){ .line = e->line };
	i = mp_expect_class_parse(w);
	if (i < 0) {
		list_names(cls_list, sizeof(cls_list), class_names, MP_EXPECT_NCLASSES);
		return fail(err, errlen, "unknown class '%s': want %s", w, cls_list);
	}
	e->cls = i;
	w = next_word(&rest);
	i = w ? mp_expect_policy_parse(w) : -1;
	if (i < 0) {
		list_names(pol_list, sizeof(pol_list), policy_names, MP_EXPECT_NPOLICIES);
		return fail(err, errlen, "%s policy '%s': want %s",
			    w ? "unknown" : "no", w ? w : "", pol_list);
	}
	e->policy = i;
	w = next_word(&rest);
	if (!w)
		return fail(err, errlen, "no figure after the policy");
	if (parse_figure(w, figures, e, err, errlen) ||
	    parse_test(rest, e, err, errlen))
		return -1;
	return 1;
}

static int set_add(struct mp_expect_set *set, const struct mp_expect *e)
{
	struct mp_expect *grown;
	size_t cap;

	if (set->n == set->cap) {
		cap = set->cap ? 2 * set->cap : 16;
		grown = realloc(set->item, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		set->item = grown;
		set->cap = cap;
	}
	set->item[set->n++] = *e;
	return 0;
}

int mp_expect_parse(FILE *f, const char *path, const char *const *const *figures,
		    struct mp_expect_set *set, char *err, size_t errlen)
{
	char line[1024], why[768];
	struct mp_expect e;
	unsigned int n = 0;
	size_t l;
	int rc;

	while (fgets(line, sizeof(line), f)) {
		n++;
		l = strlen(line);
		if (l && line[l - 1] == '\n')
			line[--l] = '\0';
		else if (!feof(f))
			return fail(err, errlen, "%s:%u: longer than %zu characters",
				    path, n, sizeof(line) - 2);
		e.line = n;
		rc = mp_expect_parse_line(line, figures, &e, why, sizeof(why));
		if (rc < 0)
			return fail(err, errlen, "%s:%u: %s", path, n, why);
		if (rc && set_add(set, &e))
			return fail(err, errlen, "%s:%u: %s", path, n, strerror(ENOMEM));
	}
	if (ferror(f))
		return fail(err, errlen, "%s: %s", path, strerror(errno ? errno : EIO));
	return 0;
}

void mp_expect_set_free(struct mp_expect_set *set)
{
	free(set->item);
	*set = (struct mp_expect_set){};
}

bool mp_expect_holds(const struct mp_expect *e, double measured)
{
	double tol;

	if (isnan(measured))
		return false;
	switch (e->op) {
	case MP_EXPECT_GE:
		return measured >= e->value;
	case MP_EXPECT_GT:
		return measured > e->value;
	case MP_EXPECT_LE:
		return measured <= e->value;
	case MP_EXPECT_LT:
		return measured < e->value;
	case MP_EXPECT_NEAR:
		tol = e->tolerance_pct ? e->tolerance * fabs(e->value) : e->tolerance;
		/* The bound is in: 2.1 is within 5% of 2, though in doubles
		 * 2.1 - 2 is a hair more than 0.05 * 2. */
		return fabs(measured - e->value) <= tol * (1 + 1e-9) + 1e-12;
	}
	return false;
}

int mp_expect_test_str(const struct mp_expect *e, char *buf, size_t len)
{
	if (e->op != MP_EXPECT_NEAR)
		return snprintf(buf, len, "%s %g", mp_expect_op_name(e->op), e->value);
	if (e->tolerance_pct)
		return snprintf(buf, len, "~ %g %g%%", e->value, e->tolerance * 100);
	return snprintf(buf, len, "~ %g %g", e->value, e->tolerance);
}
