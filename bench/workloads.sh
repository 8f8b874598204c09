#!/usr/bin/env bash
# bench/workloads.sh - real programs that allocate a lot, for measuring a
# heap profiler's overhead: jq, sqlite3, python3, xmllint (libxml2-utils),
# gawk and perl (4 threads) from Debian 12, on inputs made by
# bench/gen-inputs.py and here (deterministic, no network).
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
names="jq sqlite3 python3 xmllint gawk perl"

prepare() {
    mkdir -p "$dir"
    # .made: data.json and script.sql; .made-xml-text: data.xml and
    # text.txt (added later: an older $dir gets just those).
    if [ ! -f "$dir/.made" ]; then
        echo "bench: making inputs in $dir" >&2
        /usr/bin/python3 "$here/gen-inputs.py" "$dir" 1.0 json sql
        touch "$dir/.made"
    fi
    if [ ! -f "$dir/.made-xml-text" ]; then
        echo "bench: making the XML and text inputs in $dir" >&2
        /usr/bin/python3 "$here/gen-inputs.py" "$dir" 1.0 xml text
        touch "$dir/.made-xml-text"
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
    # perl: 4 interpreter threads (ithreads: each clones the interpreter)
    # building and pruning hashes of small records and strings.
    cat > "$dir/threads.pl" <<'PL'
use strict; use warnings; use threads;
my $n = shift // 150000;
sub work {
    my ($t) = @_;
    my (%h, @keep);
    for my $i (1 .. $n) {
        my $k = "k$t-" . ($i * 7919 % 100003);
        push @{ $h{substr($k, -2)} }, [$k, $i, "v" x ($i % 17)];
        $h{$k} = { n => $i, s => join(",", $i, $t, $k) };
        push @keep, uc($k) . reverse($k) if $i % 5 == 0;
        delete $h{"k$t-" . (($i - 50) * 7919 % 100003)} if $i > 50;
    }
    my $total = 0;
    $total += length($_) for @keep;
    return $total + scalar(keys %h);
}
my @t = map { threads->create(\&work, $_) } 1 .. 4;
my $sum = 0;
$sum += $_->join for @t;
print "$sum\n";
PL
}

run() {
    local name=$1 input=/dev/null
    shift
    [ -f "$dir/.made" ] && [ -f "$dir/.made-xml-text" ] \
        || { echo "bench: run '$0 prepare' first" >&2; exit 2; }
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
        # libxml2 builds the tree of a 58 MB catalogue: a few small
        # blocks per element, attribute and text node.
        xmllint) cmd=(xmllint --noout "$dir/data.xml") ;;
        # The classic word count: a lowered copy of each line, a
        # substitution, an array of 30 000 words.
        gawk) cmd=(gawk '{ $0 = tolower($0); gsub(/[0-9]+/, "#"); for (i = 1; i <= NF; i++) freq[$i]++ } END { for (w in freq) if (freq[w] > 100) n++; print n }' "$dir/text.txt") ;;
        perl) cmd=(perl "$dir/threads.pl" 150000) ;;
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
