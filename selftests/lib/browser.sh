# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# browser.sh: mplane's HTML pages loaded as a person's browser loads
# them, in headless Chromium (Debian's chromium, in scripts/deps.sh's
# test set).  Needs lib.sh (skip, fail) and $TMPD.

# browse FILE: FILE loaded: its DOM after loading in $TMPD/dom.html, and
# every message of its console in $TMPD/console (a good page has none).
browse() {
	command -v chromium >/dev/null || skip "no chromium (scripts/deps.sh test)"
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--user-data-dir="$TMPD/chromium" --enable-logging=stderr --v=0 \
		--dump-dom "file://$1" >"$TMPD/dom.html" 2>"$TMPD/chromium.err" ||
		fail "chromium: $(tail -n 3 "$TMPD/chromium.err")"
	grep ':CONSOLE' "$TMPD/chromium.err" >"$TMPD/console" || true
}

# browse_checks_console: a page that errs must show in the console, or
# an empty console proves nothing.
browse_checks_console() {
	printf '<!DOCTYPE html><html><body><script>console.error("x")</script></body></html>' \
		>"$TMPD/bad.html"
	browse "$TMPD/bad.html"
	[ -s "$TMPD/console" ] || fail "a console error did not show"
}

# screenshot FILE PNG: FILE as a 1280-pixel wide window shows it.
screenshot() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--user-data-dir="$TMPD/chromium" --window-size=1280,1800 \
		--screenshot="$2" "file://$1" >/dev/null 2>&1 || fail "no screenshot of $1"
	[ "$(head -c 4 "$2" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "$2 is not a PNG"
}
