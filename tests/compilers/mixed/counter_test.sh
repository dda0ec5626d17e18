#!/bin/bash
# SPDX-License-Identifier: MIT
# counter_test.sh PROGRAM: runs the test program twice into a scratch
# folder and compares the two outputs, with the tools a test script takes
# for granted (mktemp, mkdir, cat, cksum, grep, rm).
set -eu
prog=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/out"
"$prog" >"$dir/out/first"
"$prog" >"$dir/out/second"
cat "$dir/out/first"
first=$(cksum <"$dir/out/first")
second=$(cksum <"$dir/out/second")
if [ "$first" != "$second" ]; then
	echo "the two runs printed different output" >&2
	exit 1
fi
grep -q '^total 300$' "$dir/out/first"
echo "cksum $first"
