# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# tests/cli/expect.sh: what the command-line tests share, sourced after they
# have set `work`, a temporary folder holding cwd/ (the empty folder each
# command runs in). A test may set cli_prefix (the words before each
# command's arguments: the program and its subcommand) and cli_watch
# (folders under $work that a refused command must leave as they were).
: "${work:?tests/cli/expect.sh: set work, the temporary folder, first}"
passed=0 failed=0
cli_prefix=() cli_watch=()

# The watched folders' files, one a line (nothing when none is watched).
cli_watched() {
	((${#cli_watch[@]} == 0)) || (cd "$work" && find "${cli_watch[@]}" | sort)
}

# A test's verdict in cmocka's words, counted: NAME, then 0 for a pass.
cli_verdict() {
	if [[ $2 == 0 ]]; then
		echo "[       OK ] $1"
		passed=$((passed + 1))
	else
		echo "[  FAILED  ] $1"
		failed=$((failed + 1))
	fi
}

# expect NAME STATUS STDERR -- ARGS...: ${cli_prefix[@]} ARGS, run in
# $work/cwd, exits STATUS with exactly STDERR (one line) and nothing on
# stdout, and leaves that folder empty and the watched ones as they were.
expect() {
	local name=$1 want_status=$2 want_err=$3 out err status left before after
	shift 4
	echo "[ RUN      ] $name"
	before=$(cli_watched)
	out=$(cd "$work/cwd" && "${cli_prefix[@]}" "$@" 2>"$work/err")
	status=$?
	err=$(cat "$work/err")
	left=$(ls -A "$work/cwd")
	after=$(cli_watched)
	if [[ $status == "$want_status" && $err == "$want_err" && -z $out && -z $left &&
		$before == "$after" ]]; then
		cli_verdict "$name" 0
		return
	fi
	echo "${cli_prefix[*]} $*"
	echo "  status $status (want $want_status)"
	echo "  stderr: $err"
	echo "  want:   $want_err"
	[[ -z $out ]] || echo "  stdout: $out"
	[[ -z $left ]] || echo "  left in the folder: $left"
	[[ $before == "$after" ]] || echo "  made: $(diff <(echo "$before") <(echo "$after"))"
	cli_verdict "$name" 1
}

# The totals, as tests/run-tests reads them; exits 1 when a test failed.
cli_summary() {
	echo "[==========] $((passed + failed)) test(s) run."
	echo "[  PASSED  ] $passed test(s)."
	if ((failed)); then
		echo "[  FAILED  ] $failed test(s)."
		exit 1
	fi
}
