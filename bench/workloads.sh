#!/usr/bin/env bash
# bench/workloads.sh - real programs that allocate a lot, for measuring a
# heap profiler's overhead: jq, sqlite3 and python3 from Debian 12, on
# inputs made by bench/gen-inputs.py (deterministic, no network).
#
#   workloads.sh prepare              make the inputs in $HI_BENCH_DIR once
#   workloads.sh list                 the workloads' names
#   workloads.sh run NAME [PREFIX...] run NAME under PREFIX, e.g.
#       workloads.sh run jq LD_PRELOAD=.../libheapinspect.so HEAPINSPECT_OUTPUT=none
#       workloads.sh run sqlite3 heaptrack -o /tmp/ht
#     leading VAR=VALUE words of PREFIX become the program's environment,
#     so a preloaded library reaches the measured program only.
#
# HI_BENCH_DIR: where the inputs go (default /tmp/heapinspect-bench).
# The program's standard output is discarded; its errors are kept.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=${HI_BENCH_DIR:-/tmp/heapinspect-bench}
names="jq sqlite3 python3"

prepare() {
    mkdir -p "$dir"
    if [ ! -f "$dir/.made" ]; then
        echo "bench: making inputs in $dir" >&2
        python3 "$here/gen-inputs.py" "$dir" 1.0
        touch "$dir/.made"
    fi
    # python3: a dictionary of small objects, then strings built from it;
    # PYTHONMALLOC=malloc sends every object through malloc.
    cat > "$dir/dicts.py" <<'PY'
import sys
d = {}
for i in range(int(sys.argv[1])):
    k = "key%07d" % i
    d[k] = {"n": i, "s": str(i * 7919), "l": [k[-3:], str(i % 97)]}
total = sum(len(v["s"]) + len("-".join(v["l"])) for v in d.values())
index = {}
for k in d:
    if k.endswith("7"):
        index.setdefault(k[-2:], []).append(k.upper() + k[::-1])
print(total, len(index), sum(len(x) for x in index.values()))
PY
}

run() {
    local name=$1 input=/dev/null
    shift
    [ -f "$dir/.made" ] || { echo "bench: run '$0 prepare' first" >&2; exit 2; }
    local env=(env) prefix=("$@")
    while [ ${#prefix[@]} -gt 0 ] && [[ ${prefix[0]} =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do
        env+=("${prefix[0]}")
        prefix=("${prefix[@]:1}")
    done
    local cmd
    case $name in
        jq) cmd=(jq -c '[.[] | select(.score > 500) | {id, n: (.tags|length), s: (.name|ascii_upcase)}] | group_by(.n) | map(length)' "$dir/data.json") ;;
        sqlite3) cmd=(sqlite3 -batch :memory:); input=$dir/script.sql ;;
        # Exported, not passed through env(1): a wrapper such as heaptrack
        # must see python3 itself as its command.
        python3) export PYTHONMALLOC=malloc
                 cmd=(/usr/bin/python3 -s "$dir/dicts.py" 350000) ;;
        *) echo "bench: unknown workload $name (have: $names)" >&2; exit 2 ;;
    esac
    exec "${env[@]}" "${prefix[@]}" "${cmd[@]}" < "$input" > /dev/null
}

case ${1:-prepare} in
    prepare) prepare ;;
    list) echo $names ;;
    run) shift; [ $# -ge 1 ] || { echo "usage: $0 run NAME [PREFIX...]" >&2; exit 2; }
         run "$@" ;;
    *) sed -n '2,15p' "$0"; exit 2 ;;
esac
