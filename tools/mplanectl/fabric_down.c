// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl fabric down: remove a fabric, found by its prefix rather than
 * by its state file, so that what a crashed 'up' left is removed too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <glob.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "mp_cmd.h"
#include "mp_netns.h"
#include "mp_out.h"
#include "mp_print.h"
#include "mplanectl.h"
#include "fabric.h"
#include "mp_opt.h"

static const struct mp_opt_cmd down_cmd = {
	.usage = "fabric down [--prefix NAME]",
	.about =
"Remove fabric NAME and everything it left behind, even after a crash of\n"
"'fabric up' (nothing of the state file is needed):\n"
"  - processes named in " MP_FABRIC_RUN_DIR "/NAME.*.pid get SIGTERM,\n"
"    and the pid files are removed (tools that serve a fabric write them);\n"
"  - every namespace of /run/netns called NAME-<node> is deleted as by\n"
"    'ip netns del', which takes its veths and routes with it;\n"
"  - the BPF pins under " MP_FABRIC_PIN_DIR "/NAME/ are removed;\n"
"  - the state file " MP_FABRIC_RUN_DIR "/NAME.json is removed.\n"
"Removing a fabric that is not there succeeds, and says so.\n",
	.opts = fabric_prefix_only_opts,
	.footer =
"Examples:\n"
"  mplanectl fabric down\n"
"  mplanectl -j fabric down --prefix lab\n",
};

static int keep_err(int *first, int err)
{
	if (err && !*first)
		*first = err;
	return err;
}

/* A pid file holds one decimal pid; anything else is left alone. */
static int stop_pid_file(const char *path)
{
	long pid = 0;
	FILE *f;
	int err = 0;

	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (fscanf(f, "%ld", &pid) == 1 && pid > 1 && pid != getpid() &&
	    kill(pid, SIGTERM) && errno != ESRCH)
		err = -errno;
	fclose(f);
	if (err)
		mp_err("%s: pid %ld: %s", path, pid, strerror(-err));
	return err ? err : pid > 1;
}

static int stop_pids(const char *prefix, struct fabric_removed *rm)
{
	char pattern[256];
	glob_t g;
	size_t i;
	int ret, err = 0;

	snprintf(pattern, sizeof(pattern), MP_FABRIC_RUN_DIR "/%s.*.pid",
		 prefix);
	if (glob(pattern, 0, NULL, &g))
		return 0;	/* none */
	for (i = 0; i < g.gl_pathc; i++) {
		ret = stop_pid_file(g.gl_pathv[i]);
		if (ret > 0)
			rm->pids++;
		else
			keep_err(&err, ret);
		if (unlink(g.gl_pathv[i]) && errno != ENOENT)
			keep_err(&err, -errno);
	}
	globfree(&g);
	return err;
}

struct names {
	char **v;
	unsigned int n, size;
};

static void add_name(const char *netns, void *data)
{
	struct names *names = data;
	char **v;

	if (names->n == names->size) {
		names->size = names->size ? 2 * names->size : 64;
		v = realloc(names->v, names->size * sizeof(*v));
		if (!v)
			return;		/* deleted by the next 'down' */
		names->v = v;
	}
	names->v[names->n] = strdup(netns);
	if (names->v[names->n])
		names->n++;
}

/* Names first, deletions after: the directory is not changed under
 * readdir(). */
static int delete_netns(const char *prefix, struct fabric_removed *rm)
{
	struct names names = {};
	unsigned int i;
	int ret, err;

	err = fabric_scan_netns(prefix, add_name, &names);
	if (err < 0) {
		mp_err(MP_NETNS_RUN_DIR ": %s", strerror(-err));
		return err;
	}
	err = 0;
	for (i = 0; i < names.n; i++) {
		ret = mp_netns_delete(names.v[i]);
		if (!ret)
			rm->netns++;
		else if (ret != -ENOENT)
			mp_err("netns %s: %s", names.v[i],
			       strerror(-keep_err(&err, ret)));
		free(names.v[i]);
	}
	free(names.v);
	return err;
}

static int remove_entry(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	int err;

	(void)st;
	(void)type;
	(void)ftw;
	if (!remove(path) || errno == ENOENT)
		return 0;
	err = errno;
	mp_err("%s: %s", path, strerror(err));
	return -err;
}

/* Pins are files of bpffs: unlinking one drops its reference. */
static int remove_pins(const char *prefix, struct fabric_removed *rm)
{
	char dir[256];
	int err;

	snprintf(dir, sizeof(dir), MP_FABRIC_PIN_DIR "/%s", prefix);
	if (access(dir, F_OK))
		return 0;
	err = nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (!err)
		rm->pins = true;
	return err;
}

static int remove_state(const char *prefix, struct fabric_removed *rm)
{
	char path[256], tmp[272];

	mp_fabric_state_path(prefix, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	unlink(tmp);
	if (!unlink(path)) {
		rm->state = true;
		return 0;
	}
	if (errno == ENOENT)
		return 0;
	mp_err("%s: %s", path, strerror(errno));
	return -errno;
}

int fabric_destroy(const char *prefix, struct fabric_removed *rm)
{
	int err = 0;

	memset(rm, 0, sizeof(*rm));
	/* Processes first: they may be using the namespaces and pins. */
	keep_err(&err, stop_pids(prefix, rm));
	keep_err(&err, delete_netns(prefix, rm));
	keep_err(&err, remove_pins(prefix, rm));
	keep_err(&err, remove_state(prefix, rm));
	return err;
}

static void print_removed(const char *prefix, const struct fabric_removed *rm)
{
	bool none = !rm->netns && !rm->pids && !rm->state && !rm->pins;
	enum mp_print_to said = none ? MP_PRINT_JSON : MP_PRINT_ANY;

	mp_print_start();
	mp_print_str(MP_PRINT_ANY, "prefix", "%s: ", prefix);
	if (none)
		mp_print_text("no such fabric, nothing to remove\n");
	mp_print_u64(said, "netns_count", "removed %" PRIu64 " namespaces",
		     rm->netns);
	/* Text names the state file and the pins, JSON says yes or no. */
	if (!none)
		mp_print_text("%s%s", rm->state ? ", the state file" : "",
			      rm->pins ? ", BPF pins" : "");
	mp_print_u64(said, "pids", ", stopped %" PRIu64 " processes\n",
		     rm->pids);
	mp_print_bool(MP_PRINT_JSON, "removed_state_file", NULL, rm->state);
	mp_print_bool(MP_PRINT_JSON, "removed_pins", NULL, rm->pins);
	mp_print_end();
}

int fabric_down_main(int argc, char **argv)
{
	struct fabric_prefix_settings set = { MP_FABRIC_DEF_PREFIX };
	const char *prefix = set.prefix;
	struct mp_opt_result res;
	struct fabric_removed rm;
	int c, err;

	c = mp_opt_parse(&down_cmd, argc, argv, &set, &res);
	if (c != MP_OPT_RUN)
		return c;
	if (optind < argc)
		return mp_usage_err("unexpected argument '%s'", argv[optind]);
	err = fabric_destroy(prefix, &rm);
	print_removed(prefix, &rm);
	return err ? MP_EXIT_ERR : MP_EXIT_OK;
}
