#!/bin/bash
# Does resuming train.py from its checkpoint give the same weights as an uninterrupted run?
# Trains a tiny model (3 small registries of .cache/train/data, 8 steps) twice: once straight
# through, once killed with SIGKILL after its third checkpoint and rerun (which resumes). Prints
# both weights' sha256 and exits 1 unless they match. A minute or two on two cores.
#
#   nice -n 19 scripts/train/check-resume.sh
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/data"
cp "$root"/.cache/train/data/{tooltalk,restbench_tmdb,restbench_spotify}.json "$work/data/"
train=(/usr/bin/python3 "$root/scripts/train/train.py" --data "$work/data" --steps 8 --batch 8 --pool 16 --warmup 2 --ckpt-every 1)
"${train[@]}" --out "$work/a" > "$work/a.out" 2>&1 || { cat "$work/a.out"; exit 1; }
# A plain command, not a function: $! is then python itself, which the kill must reach.
"${train[@]}" --out "$work/b" > "$work/b.out" 2>&1 &
pid=$!
until grep -q "step 3/8" "$work/b.out" 2>/dev/null; do sleep 0.2; done
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
"${train[@]}" --out "$work/b" >> "$work/b.out" 2>&1 || { cat "$work/b.out"; exit 1; }
grep -h "resumed at" "$work/b.out" || { echo "the rerun did not resume"; cat "$work/b.out"; exit 1; }
a=$(sha256sum < "$work/a/weights.bin" | cut -d' ' -f1)
b=$(sha256sum < "$work/b/weights.bin" | cut -d' ' -f1)
echo "uninterrupted $a"
echo "resumed       $b"
[ "$a" = "$b" ] && echo "same weights" || { echo "DIFFERENT weights"; exit 1; }
