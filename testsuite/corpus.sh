#!/bin/bash
# corpus.sh - the behaviour corpus: what a heapinspect build's CLI and gdb plugin print for every table, format and option over fixed inputs.
# Compare two builds (same inputs, /work/corpus-base): testsuite/corpus.sh A/cli/heapinspect A/gdbplugin/.libs/heapinspect-gdb.so OUT-A,
# the same for B into OUT-B, then `diff -r OUT-A OUT-B`: empty means no change in behaviour.  A developer's tool: not run by make check.
#
# Usage: testsuite/corpus.sh CLI PLUGIN OUTDIR [INPUTDIR]
#   CLI       a built heapinspect (cli/heapinspect)
#   PLUGIN    the gdb plugin, heapinspect-gdb.so (heap.gdb is looked for
#             beside it and one directory up), or heap.gdb itself
#   OUTDIR    created; an earlier corpus there is replaced
#   INPUTDIR  a build tree whose `make check` has run (default
#             /work/corpus-base): its testsuite/tmp/ snapshots (*.hip,
#             *.hip.gz) and core files, and demo-snapshots/*.hip, the
#             demo's snapshots kept by hand (demo/run removes its own):
#               for p in widget:10000:1 shapes:1000 arena:1000; do
#                 IFS=: read n a b <<<"$p"
#                 LD_PRELOAD=$PWD/lib/.libs/libheapinspect.so \
#                 HEAPINSPECT_OUTPUT=$PWD/demo-snapshots/$n.hip demo/$n $a $b
#               done
#             The inputs' programs and libraries are read from there too,
#             so INPUTDIR is never rebuilt: a corpus compares builds over
#             the same inputs only.
#
# Each output is OUTDIR/<input-id>/<command>.out: the command line, its
# standard output, its standard error after a '--- stderr' line, and
# '--- exit N'.  Binary pprof output is recorded as its sha256 and
# `protoc --decode_raw` of it; files written with -o or `heap export` are
# appended after '--- file'.  The gdb sessions (gdb+<id>/) record each
# heap command's output (stdout and stderr in gdb's order).  Normalized:
# the paths of CLI, the plugin and heap.gdb, and of this run's scratch and
# output directories.  Not covered: `run` and -p (a live process: pids and
# times differ each run).

set -u
export LC_ALL=C TZ=UTC TERM=dumb
unset COLUMNS LINES DEBUGINFOD_URLS TMPDIR
for v in $(env | sed -n 's/^\(HEAPINSPECT_[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$v"
done

die () { echo "corpus.sh: $*" >&2; exit 2; }
[ $# -ge 3 ] && [ $# -le 4 ] || die "usage: corpus.sh CLI PLUGIN OUTDIR [INPUTDIR]"
abspath () { (cd "$(dirname "$1")" && printf '%s/%s\n' "$(pwd -P)" "$(basename "$1")"); }
CLI=$(abspath "$1") || die "$1: no such file"
[ -x "$CLI" ] || die "$1: not an executable"
PLUGIN=$(abspath "$2") || die "$2: no such file"
case $PLUGIN in
    *.gdb) HEAPGDB=$PLUGIN
           SO=$(sed -n 's/^ *jit-reader-load //p' "$HEAPGDB" | head -n 1) ;;
    *) SO=$PLUGIN; HEAPGDB=
       for g in "$(dirname "$SO")/heap.gdb" "$(dirname "$(dirname "$SO")")/heap.gdb"; do
           [ -f "$g" ] && { HEAPGDB=$(abspath "$g"); break; }
       done ;;
esac
[ -f "$SO" ] || die "$SO: no plugin there"
[ -n "$HEAPGDB" ] && [ -f "$HEAPGDB" ] || die "no heap.gdb beside $SO"
INPUTDIR=$(cd "${4:-/work/corpus-base}" && pwd -P) || die "no input directory"
[ -d "$INPUTDIR/testsuite/tmp" ] || die "$INPUTDIR/testsuite/tmp: run make check there first"
for t in python3 jq gzip protoc gdb sha256sum; do
    command -v $t >/dev/null || die "$t is needed"
done

mkdir -p "$3" || die "cannot make $3"
OUT=$(cd "$3" && pwd -P)
if [ -n "$(ls -A "$OUT")" ]; then
    [ -f "$OUT/.corpus" ] || die "$OUT: not empty and not a corpus"
    find "$OUT" -mindepth 1 -delete
fi
touch "$OUT/.corpus"
S=$(mktemp -d /tmp/corpus.XXXXXX) || die "no scratch directory"
trap 'rm -rf "$S"' EXIT
ERR=$S/stderr BIN=$S/stdout
mkdir "$S/o" "$S/gdb"
start=$(date +%s)
lap=$start
# Progress on standard error (not in the corpus): each part's seconds.
section () {
    local now
    now=$(date +%s)
    echo "corpus.sh: $1 ($((now - lap))s)" >&2
    lap=$now
}

# heap.gdb names the plugin it loads; another one given: a copy that loads it.
embedded=$(sed -n 's/^ *jit-reader-load //p' "$HEAPGDB" | head -n 1)
if [ "$embedded" != "$SO" ]; then
    sed "s|jit-reader-load $embedded\$|jit-reader-load $SO|" "$HEAPGDB" >"$S/heap.gdb"
    echo "corpus.sh: $HEAPGDB loads $embedded: using a copy that loads $SO" >&2
    HEAPGDB_USED=$S/heap.gdb
else
    HEAPGDB_USED=$HEAPGDB
fi

# A suppressions file (LeakSanitizer's syntax), and one with a bad line.
printf '# corpus\nleak:make_widget\nleak:^main$\nrace:whatever\nleak:*python*\n' >"$S/supp"
printf 'leak:ok\nnot a line\n' >"$S/bad.supp"

cd "$INPUTDIR" || exit 2

# ---------------------------------------------------------------- helpers
# id of an input: its path under testsuite/tmp, '/' as '+'.
idof () { local p=${1#testsuite/tmp/}; printf '%s\n' "${p//\//+}"; }

# run ID NAME ARGS...: heapinspect ARGS, text output.
run () {
    local f="$OUT/$1/$2.out"
    shift 2
    { printf '$ heapinspect'; printf ' %q' "$@"; printf '\n'
      "$CLI" "$@" 2>"$ERR" </dev/null; } >"$f"
    local rc=$?
    if [ -s "$ERR" ]; then
        { echo '--- stderr'; cat "$ERR"; } >>"$f"
    fi
    echo "--- exit $rc" >>"$f"
    return $rc
}

# pprof_of FILE: the sha256 and the decoded profile of a gzip'd profile.
pprof_of () {
    [ -s "$1" ] || { echo "(empty)"; return; }
    echo "sha256 $(sha256sum <"$1" | cut -c1-64)"
    gzip -dc <"$1" >"$S/pb" 2>&1 || { echo "(not gzip)"; cat "$S/pb"; return; }
    protoc --decode_raw <"$S/pb" 2>&1
}

# runbin ID NAME ARGS...: heapinspect ARGS whose output is a pprof profile.
runbin () {
    local f="$OUT/$1/$2.out"
    shift 2
    "$CLI" "$@" >"$BIN" 2>"$ERR" </dev/null
    local rc=$?
    { printf '$ heapinspect'; printf ' %q' "$@"; printf '\n'
      pprof_of "$BIN"
      if [ -s "$ERR" ]; then echo '--- stderr'; cat "$ERR"; fi
      echo "--- exit $rc"; } >"$f"
}

# runo ID NAME ARGS...: heapinspect -o FILE ARGS, and the file.
runo () {
    local id=$1 name=$2
    shift 2
    rm -f "$S/o/file"
    run "$id" "$name" -o "$S/o/file" "$@"
    { echo '--- file'
      if [ -f "$S/o/file" ]; then cat "$S/o/file"; else echo '(none)'; fi
    } >>"$OUT/$id/$name.out"
}

# run_fmt ID NAME FORMAT ARGS...: ARGS in FORMAT, binary or not.
run_fmt () {
    local id=$1 name=$2 fmt=$3
    shift 3
    if [ "$fmt" = pprof ]; then
        runbin "$id" "$name" --format=pprof "$@"
    else
        run "$id" "$name" --format="$fmt" "$@"
    fi
}

# addresses ID JSONFILE: up to 4 heap addresses a JSON report names (heap
# errors, redzones written), each with the block's size (0 if unknown).
addresses () {
    jq -r '[(.errors.rows[]? | {a: .block, s: (.block_size // 0)},
                                {a: .address, s: 0},
                                {a: .block_before, s: (.block_before_size // 0)}),
             (.redzones_written.rows[]? | {a: .address, s: .size})]
           | map(select(.a != null and .a != "0x0")) | unique_by(.a)
           | .[:4][] | "\(.a) \(.s)"' "$2" 2>/dev/null
}

# blocks ID SRC... < "ADDR SIZE" lines: heapinspect block on each address,
# inside it, before it (its headers) and past its end.
blocks () {
    local id=$1 a size n=0 h
    shift
    while read -r a size; do
        [ -n "$a" ] || continue
        n=$((n + 1))
        run "$id" "block$n" block "$a" "$@"
        run "$id" "block$n+8" block "$(printf '0x%x' $((a + 8)))" "$@"
        run "$id" "block$n-16" block "$(printf '0x%x' $((a - 16)))" "$@"
        if [ "$size" -gt 0 ] 2>/dev/null; then
            run "$id" "block$n+size" block "$(printf '0x%x' $((a + size)))" "$@"
            run "$id" "block$n+size+20" block "$(printf '0x%x' $((a + size + 20)))" "$@"
        fi
        if [ $n = 1 ]; then
            h=$(printf '0x%x' $((a + 8)))
            run "$id" "block$n.json" --format=json block "$h" "$@"
            run "$id" "block$n.depth1-offsets" --depth=1 --offsets block "$h" "$@"
            run "$id" "block$n.decimal" block "$((a))" "$@"
        fi
    done
}

TABLES="leaks bins direct graph stat peak temporary lifetimes timeline errors types"
ALLTABLES=leaks,bins,direct,graph,stat,peak,temporary,lifetimes,timeline,errors,types
FORMATS="text json pprof pprof-text folded svg massif"
WEIGHTS="inuse_space inuse_objects alloc_space alloc_objects peak_space peak_objects"

# ----------------------------------------------------------------- inputs
# Every snapshot and core under testsuite/tmp, the demo's snapshots, and
# two files the reader tests keep (empty, random); FIFOs and links skipped.
python3 - >"$OUT/inputs.list" <<'EOF'
import os
out = []
for top in ("testsuite/tmp", "demo-snapshots"):
    for d, subs, files in os.walk(top):
        for f in files:
            p = os.path.join(d, f)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            if f.endswith(".hip") or f.endswith(".hip.gz") \
               or p in ("testsuite/tmp/reader/empty", "testsuite/tmp/reader/random"):
                out.append(p)
                continue
            try:
                with open(p, "rb") as fh:
                    h = fh.read(18)
            except OSError:
                continue
            if len(h) == 18 and h[:4] == b"\x7fELF" and h[16:18] == b"\x04\x00":
                out.append(p)
for p in sorted(out):
    print(p)
EOF
mapfile -t INPUTS <"$OUT/inputs.list"
[ ${#INPUTS[@]} -gt 0 ] || die "no inputs under $INPUTDIR"

# The inputs every table, format and option is run on (globs: the file
# names hold pids); MATRIX ones also get every table in every format.
FULL=(demo-snapshots/widget.hip demo-snapshots/shapes.hip demo-snapshots/arena.hip
      testsuite/tmp/gdb-commands/run.core testsuite/tmp/gdb-lost/run.core
      testsuite/tmp/badinput-trunc/cut-0.5 testsuite/tmp/freed-df/core
      testsuite/tmp/freed-waf/core testsuite/tmp/freed-overflow/core
      testsuite/tmp/freed-redzone/core testsuite/tmp/freed-stack/core
      testsuite/tmp/leakcheck-all/core testsuite/tmp/leakcheck-all/torn
      testsuite/tmp/leakcheck-sqlite3/core testsuite/tmp/procinfo-v2/v2.core
      testsuite/tmp/time-tables/time.hip testsuite/tmp/time-tables-life/time.hip
      testsuite/tmp/timeline/notime.hip testsuite/tmp/guard-waf-snap/waf.hip
      testsuite/tmp/guard-overflow/exit.*.hip testsuite/tmp/types-c/exit.*.hip
      testsuite/tmp/types-g++-O2-c++20/exit.*.hip testsuite/tmp/pools/exit.*.hip
      testsuite/tmp/graph-recurse-300/exit.*.hip testsuite/tmp/names-stripped/exit.*.hip
      testsuite/tmp/zerosize/exit.*.hip testsuite/tmp/reader/version1.hip
      testsuite/tmp/reader-damage/types-good.hip testsuite/tmp/real-sqlite3/exit.*.hip)
MATRIX=(demo-snapshots/widget.hip testsuite/tmp/gdb-commands/run.core
        testsuite/tmp/time-tables/time.hip testsuite/tmp/freed-waf/core
        testsuite/tmp/types-c/exit.*.hip testsuite/tmp/timeline/notime.hip)
declare -A IS_FULL IS_MATRIX
for p in "${FULL[@]}"; do [ -f "$p" ] && IS_FULL[$p]=1; done
for p in "${MATRIX[@]}"; do [ -f "$p" ] && IS_MATRIX[$p]=1; done

# ----------------------------------------------------- options, no input
U=_usage
mkdir "$OUT/$U"
W=demo-snapshots/widget.hip
run $U help --help
run $U h -h
run $U version --version
run $U none
run $U bad-table -t leaks,nosuch $W
run $U empty-table -t '' $W
run $U bad-format --format=bogus $W
run $U depth0 --depth=0 $W
run $U depth10001 --depth=10001 $W
run $U depth-x --depth=x $W
run $U threshold101 --threshold=101 $W
run $U threshold-4dec --threshold=0.0001 $W
run $U threshold-abc --threshold=abc $W
run $U limit-neg --limit=-1 $W
run $U weight-bogus --weight=bogus $W
run $U focus-bad-regex '--focus=(' $W
run $U ignore-bad-regex '--ignore=[' $W
run $U supp-missing --suppressions=/nonexistent/supp $W
run $U supp-bad --suppressions="$S/bad.supp" $W
run $U prefix-ambiguous --t $W
run $U prefix-ok --thr=1 --lim 2 -t leaks $W
run $U unknown-option --nosuch $W
run $U no-value --depth
run $U terse-verbose --terse --verbose -t leaks $W
run $U block-noaddr block
run $U block-badaddr block 0xzz $W
run $U block-nosource block 0x10
run $U diff-none diff
run $U diff-one diff $W
run $U diff-tables diff -t leaks $W $W
run $U diff-folded diff --format=folded $W $W
run $U flamegraph-json flamegraph --format=json $W
run $U leakcheck-tables --leak-check -t leaks $W
run $U leakcheck-folded --leak-check --format=folded $W
run $U leakcheck-stat --leak-check stat $W
run $U leakcheck-diff --leak-check diff $W $W
run $U follow-children --follow-children $W
run $U error-exitcode --error-exitcode=3 $W
run $U run-p run -p 1 -- true
run $U run-nocommand run
run $U run-leakcheck-t run --leak-check -t leaks -- true
run $U run-operand $W run -- true
run $U too-many $W $W $W
run $U nonexistent testsuite/tmp/no/such.hip
run $U directory testsuite/tmp
run $U devnull /dev/null
run $U raw-and-file --raw testsuite/tmp/raw/r0.bin@0x1000 $W extra
run $U raw-bad-spec --raw testsuite/tmp/raw/r0.bin $W
run $U p-and-file -p 1 $W extra
runo $U o-missing-dir -t stat $W
run $U o-bad-dir -o /nonexistent/dir/file -t stat $W
run $U stat-two stat $W $W
run $U modules-nosource modules

# -------------------------------------------------------- every input
n_in=0
for p in "${INPUTS[@]}"; do
    n_in=$((n_in + 1))
    id=$(idof "$p")
    mkdir -p "$OUT/$id"
    run "$id" default "$p"
    run "$id" stat stat "$p"
    case $p in testsuite/tmp/badinput-fields/*) continue ;; esac
    run "$id" json-all -t $ALLTABLES --format=json "$p"
    sed -n '1d;/^--- \(stderr\|exit\)/q;p' "$OUT/$id/json-all.out" >"$S/json"
    run "$id" modules modules "$p"
    run "$id" leak-check --leak-check "$p"
    [ -n "${IS_FULL[$p]:-}" ] || continue

    # Each table in text and JSON; the default tables in JSON.
    for t in $TABLES; do
        run "$id" "t-$t" -t "$t" "$p"
        run "$id" "t-$t.json" -t "$t" --format=json "$p"
    done
    run "$id" default.json --format=json "$p"
    run "$id" all-tables -t $ALLTABLES "$p"
    run "$id" reversed -t types,errors,timeline,stat,leaks "$p"
    # Every format of the default tables, every weight.
    for fmt in $FORMATS; do
        case $fmt in text|json) ;; *) run_fmt "$id" "fmt-$fmt" "$fmt" "$p" ;; esac
    done
    run "$id" fmt-svg-timeline --format=svg -t timeline "$p"
    run "$id" fmt-svg-timeline-leaks --format=svg -t timeline,leaks "$p"
    for w in $WEIGHTS; do
        run "$id" "folded-$w" --format=folded --weight=$w "$p"
    done
    run "$id" svg-alloc_objects --format=svg --weight=alloc_objects "$p"
    run "$id" pprof-text-focus --format=pprof-text '--focus=^make_' "$p"
    run "$id" folded-ignore --format=folded '--ignore=^main$' "$p"
    run "$id" folded-module-libc --format=folded --module=libc "$p"
    run "$id" massif-verbose --format=massif --verbose "$p"
    # The commands.
    run "$id" cmd-peak peak "$p"
    run "$id" cmd-peak.json peak --format=json "$p"
    run "$id" cmd-peak.folded peak --format=folded "$p"
    run "$id" cmd-peak.folded-alloc peak --format=folded --weight=alloc_space "$p"
    run "$id" cmd-peak.svg peak --format=svg "$p"
    run "$id" cmd-timeline timeline "$p"
    run "$id" cmd-timeline.verbose timeline --verbose "$p"
    run "$id" cmd-timeline.json timeline --format=json "$p"
    run "$id" cmd-timeline.svg timeline --format=svg "$p"
    run "$id" cmd-timeline.massif timeline --format=massif "$p"
    runo "$id" cmd-flamegraph flamegraph "$p"
    run "$id" cmd-flamegraph.timeline flamegraph -t timeline "$p"
    runo "$id" o-text -t leaks,stat "$p"
    runo "$id" o-json --format=json "$p"
    run "$id" leak-check.json --leak-check --format=json "$p"
    run "$id" leak-check.verbose --leak-check --verbose --bytes "$p"
    run "$id" leak-check.depth2 --leak-check --depth=2 --offsets --threshold=0 "$p"
    run "$id" leak-check.supp --leak-check --suppressions="$S/supp" "$p"
    run "$id" leak-check.nodefault --leak-check --no-default-suppressions "$p"
    run "$id" leak-check.focus --leak-check '--focus=^make_' --limit=1 "$p"
    # Report options.
    run "$id" depth1 --depth=1 -t leaks,peak,temporary "$p"
    run "$id" depth2-offsets --depth=2 --offsets -t leaks,graph,errors "$p"
    run "$id" depth10000 --depth 10000 -t leaks,lifetimes,types "$p"
    run "$id" offsets --offsets "$p"
    run "$id" terse --terse -t $ALLTABLES "$p"
    run "$id" verbose --verbose -t $ALLTABLES "$p"
    run "$id" threshold0 --threshold=0 "$p"
    run "$id" threshold2.5 --threshold=2.5% -t leaks,bins,direct,graph,peak,timeline "$p"
    run "$id" limit1 --limit=1 -t $ALLTABLES "$p"
    run "$id" limit0-verbose --limit=0 --verbose -t graph "$p"
    run "$id" bytes --bytes -t $ALLTABLES "$p"
    run "$id" long-names --long-names -t leaks,direct,graph,types "$p"
    run "$id" no-lines --no-lines -t leaks,direct,graph,errors "$p"
    run "$id" focus-make --focus='^make_' "$p"
    run "$id" focus-main --focus=main -t leaks,peak,temporary,lifetimes,timeline "$p"
    run "$id" ignore-main '--ignore=^main$' "$p"
    run "$id" ignore-dot --ignore=. -t leaks,graph "$p"
    run "$id" module-libc --module=libc -t leaks,direct "$p"
    run "$id" module-none --module=nosuch.so "$p"
    run "$id" supp --suppressions="$S/supp" -t leaks "$p"
    run "$id" no-default-supp --no-default-suppressions -t leaks "$p"
    run "$id" combo.json --depth=3 --offsets --bytes --threshold=0 --limit=3 -t leaks,peak,graph --format=json "$p"
    run "$id" combo-terse.json --terse --focus=. --ignore=zzz -t $ALLTABLES --format=json "$p"
    # Heap addresses the JSON names.
    addresses "$id" "$S/json" >"$S/addrs"
    blocks "$id" "$p" <"$S/addrs"
    run "$id" block0 block 0 "$p"
    run "$id" block-high block 0x7fffffffe000 "$p"

    [ -n "${IS_MATRIX[$p]:-}" ] || continue
    # Every table in every format (a refusal is an output too); pprof
    # carries every figure, whatever --weight says.
    for w in $WEIGHTS; do
        runbin "$id" "pprof-$w" --format=pprof --weight=$w "$p"
    done
    for t in $TABLES; do
        for fmt in pprof pprof-text folded svg massif; do
            run_fmt "$id" "x-$t.$fmt" "$fmt" -t "$t" "$p"
        done
    done
done

section "every input"
# --------------------------------------------- raw dumps (--raw FILE@ADDR)
# The regions of a snapshot written out one file each by raw.exp.
rawargs () {
    python3 - "$1" <<'EOF'
import os, struct, sys
hip = sys.argv[1]
d = open(hip, "rb").read()
magic, version, n, root = struct.unpack_from("<QIIQ", d, 0)
for i in range(n):
    addr, size, off = struct.unpack_from("<QQQ", d, 32 + 24 * i)
    f = os.path.join(os.path.dirname(hip), "r%d.bin" % i)
    if os.path.isfile(f):
        print("--raw")
        print("%s@0x%x" % (f, addr))
EOF
}
for hip in testsuite/tmp/raw/w.hip testsuite/tmp/raw-static/s.hip testsuite/tmp/symbols/s.hip; do
    [ -f "$hip" ] || continue
    id=raw+$(idof "$(dirname "$hip")")
    mkdir -p "$OUT/$id"
    mapfile -t R < <(rawargs "$hip")
    exe=()
    case $hip in */raw-static/*) exe=(testsuite/progs/widget-static) ;; esac
    run "$id" default "${R[@]}" "${exe[@]}"
    run "$id" stat stat "${R[@]}" "${exe[@]}"
    run "$id" json-all -t $ALLTABLES --format=json "${R[@]}" "${exe[@]}"
    run "$id" folded --format=folded "${R[@]}" "${exe[@]}"
    run "$id" pprof-text --format=pprof-text "${R[@]}" "${exe[@]}"
    runbin "$id" pprof --format=pprof "${R[@]}" "${exe[@]}"
    run "$id" massif --format=massif "${R[@]}" "${exe[@]}"
    run "$id" modules modules "${R[@]}" "${exe[@]}"
    run "$id" leak-check --leak-check "${R[@]}" "${exe[@]}"
    run "$id" block-root block "${R[1]#*@}" "${R[@]}" "${exe[@]}"
    run "$id" no-root --raw "${R[3]:-x}" "${exe[@]}"
done

section "raw dumps"
# ------------------------------------------------------------------ diff
D=_diff
mkdir "$OUT/$D"
# diffs NAME OLD NEW: the pair in text and JSON.
diffs () {
    local name=$1
    shift
    run $D "$name" diff "$@"
    run $D "$name.json" diff --format=json "$@"
}
# Every X-before.hip with its X-after.hip, and the pairs below.
for b in "${INPUTS[@]}"; do
    case $b in *-before.hip) ;; *) continue ;; esac
    a=${b%-before.hip}-after.hip
    [ -f "$a" ] && diffs "$(idof "${b%-before.hip}")" "$b" "$a"
done
pair () { [ -f "$2" ] && [ -f "$3" ] && diffs "$@"; }
cd testsuite/tmp || exit 2
pair points diff/point1.hip diff/point2.hip
pair points-reversed diff/point2.hip diff/point1.hip
pair points-same diff/point1.hip diff/point1.hip
pair another-run diff-another-run/point1.hip diff-another-run/point2.hip
pair rebuilt diff-a-rebuilt-program/point1.hip diff-a-rebuilt-program/point2.hip
pair rebuilt-vs-run diff-a-rebuilt-program/point1.hip diff-another-run/point2.hip
for g in diff/gcore.*; do pair points-core diff/point1.hip "$g"; done
for g in targets/gcore.*; do
    for h in targets/exit.*.hip; do pair targets-hip-core "$h" "$g"; done
done
for f in diff-damage/*.hip; do
    pair "damage-$(basename "$f" .hip)" diff-damage/good.hip "$f"
done
pair programs ../../demo-snapshots/widget.hip ../../demo-snapshots/shapes.hip
pair core-vs-core gdb-commands/run.core targets-crash/core
pair time time-tables/time.hip time-tables-life/time.hip
if [ -f diff/point1.hip ] && [ -f diff/point2.hip ]; then
    run $D points-exe diff diff/point1.hip ../progs/diff-points diff/point2.hip ../progs/diff-points
    for o in --no-lines --bytes --threshold=0 --limit=1 --depth=1 --offsets \
             --verbose --terse '--focus=^main$' --ignore=. --module=libc; do
        run $D "points$o" diff "$o" diff/point1.hip diff/point2.hip
    done
    run $D points-combo.json diff --format=json --depth=2 --bytes --threshold=0 --limit=2 \
        diff/point1.hip diff/point2.hip
    run $D points-missing diff diff/point1.hip no/such.hip
    run $D points-empty diff diff/point1.hip reader/empty
    runo $D points-o diff diff/point1.hip diff/point2.hip
fi
cd "$INPUTDIR" || exit 2

section "diff"
# ------------------------------------------------------------ gdb plugin
# One gdb session per (program, core): each heap command after a marker
# line; the output is then cut at the markers.
GDBCMDS=(
    "help heap" "heap"
    "heap leaks" "heap leaks 2" "heap leaks 8 --offsets" "heap leaks --format=json"
    "heap leaks --depth 0" "heap leaks --bogus" "heap leaks --thr=1 --lim 1"
    "heap leaks --focus='^make_(red|blue)' --threshold=1 --long-names"
    "heap leaks --format=pprof" "heap leaks --format=pprof-text"
    "heap leaks --format=folded" "heap leaks --format=folded --weight=alloc_space"
    "heap leaks --format=massif" "heap leaks --format=svg"
    "heap leaks --suppressions=$S/supp" "heap leaks --no-default-suppressions --bytes"
    "heap leaks 'unclosed" "heap leaks a\\"
    "heap leaks -t $ALLTABLES" "heap leaks -t $ALLTABLES --format=json"
    "heap bins" "heap bins --verbose" "heap direct" "heap direct --bytes --no-lines"
    "heap graph" "heap graph --ignore='^std::' --limit 20" "heap graph --verbose"
    "heap stat" "heap stat --format=json"
    "heap peak" "heap peak -t temporary,lifetimes" "heap peak --format=folded"
    "heap timeline" "heap timeline --format=json" "heap timeline --verbose"
    "heap types" "heap types --format=json" "heap errors" "heap errors --format=json"
    "heap lost" "heap lost --format=json" "heap lost --verbose --depth 2"
    "heap lost -t leaks" "heap lost --suppressions=$S/supp"
    "heap block" "heap block 0" "heap block \$sp" "heap block \$pc"
    "heap export" "heap export bogus x" "heap export json" "heap export json nodir/x.json"
    "heap export text export.text" "heap export json export.json -t leaks --depth 8"
    "heap export pprof export.pprof" "heap export pprof-text export.pprof-text"
    "heap export folded export.folded --weight=alloc_space" "heap export svg export.svg"
    "heap export svg export.svg-timeline -t timeline" "heap export massif export.massif"
    "heap diff" "heap diff nosuch.hip" "heap diff $INPUTDIR/testsuite/tmp/badinput-trunc/core"
)
# gdb_session ID PROGRAM [CORE [SNAPSHOT [EXPR...]]]: SNAPSHOT for heap diff,
# EXPRs for heap block.
gdb_session () {
    local id=gdb+$1 prog=$2 core=$3 snap=$4 c i=0 f
    shift 4
    case $prog in /*) ;; *) prog=$INPUTDIR/$prog ;; esac
    [ -f "$prog" ] || return 0
    [ -z "$core" ] || [ -f "$core" ] || return 0
    mkdir -p "$OUT/$id" "$S/gdb/$id"
    local cmds=("${GDBCMDS[@]}")
    [ -n "$snap" ] && snap=$INPUTDIR/$snap &&
        cmds+=("heap diff $snap" "heap diff $snap --format=json --depth 2"
               "heap diff $snap -t leaks" "heap diff $snap --format=folded")
    for c in "$@"; do cmds+=("heap block $c"); done
    local args=(-nx -q -nw -batch -iex "set debuginfod enabled off"
                -ex "set style enabled off" -ex "set pagination off" -ex "set width 0"
                -ex "set height 0" -ex "set confirm off" -ex "source $HEAPGDB_USED")
    for c in "${cmds[@]}"; do
        i=$((i + 1))
        args+=(-ex "echo \\n@@corpus@@ $(printf '%03d' $i)\\n" -ex "$c")
        printf '%s\n' "$c" >"$S/gdb/$id/cmd.$(printf '%03d' $i)"
    done
    args+=("$prog")
    [ -n "$core" ] && args+=("$INPUTDIR/$core")
    (cd "$S/gdb/$id" && gdb "${args[@]}" >"$S/gdb/$id/log" 2>&1 </dev/null)
    local rc=$?
    # Cut the log at the markers: _start.out is what came before the first.
    awk -v dir="$S/gdb/$id" '
        /^@@corpus@@ [0-9][0-9][0-9]$/ { f = dir "/out." $2; printf "" > f; next }
        { if (f == "") f = dir "/out.000"; print >> f }' "$S/gdb/$id/log"
    { echo "\$ gdb ${prog#$INPUTDIR/}${core:+ $core}"; cat "$S/gdb/$id/out.000" 2>/dev/null
      echo "--- gdb exit $rc"; } >"$OUT/$id/_start.out"
    for ((i = 1; i <= ${#cmds[@]}; i++)); do
        local k slug
        k=$(printf '%03d' $i)
        c=$(cat "$S/gdb/$id/cmd.$k")
        # 012-heap_leaks_--format=json.out: the command, paths cut to names.
        slug=$(printf '%s' "$c" | sed -e "s|$INPUTDIR/[^ ]*/||g; s|$S/||g" \
                   -e 's/[^A-Za-z0-9.,=+-]/_/g' | cut -c1-80)
        f="$OUT/$id/$k-$slug.out"
        { echo "(gdb) $c"; cat "$S/gdb/$id/out.$k" 2>/dev/null || echo '(no marker)'; } >"$f"
        case $c in
            "heap export "*)
                set -- $c
                if [ -n "${4:-}" ] && [ -f "$S/gdb/$id/$4" ]; then
                    echo "--- file $4" >>"$f"
                    if [ "$3" = pprof ]; then pprof_of "$S/gdb/$id/$4" >>"$f"
                    else cat "$S/gdb/$id/$4" >>"$f"; fi
                fi ;;
        esac
    done
}
for c in testsuite/tmp/gdb-commands/gcore.*; do
    gdb_session widget-gcore demo/widget "$c" demo-snapshots/widget.hip \
        last_red '(char *) last_red + 12' '(char *) last_red - 8' '(char *) last_red + 204'
done
gdb_session widget-crash demo/widget testsuite/tmp/gdb-commands/run.core demo-snapshots/widget.hip \
    last_red '(char *) last_red + 12' '(char *) last_red + 200' '(char *) last_red + 300' '&last_red'
gdb_session widget-cut demo/widget testsuite/tmp/badinput-trunc/cut-0.5 "" last_red
gdb_session widget-nocore demo/widget "" ""
gdb_session leak-exit testsuite/progs/leak-exit testsuite/tmp/gdb-lost/run.core ""
for c in df waf overflow redzone uaf stack; do
    gdb_session "freed-$c" testsuite/tmp/freed/freed-bugs "testsuite/tmp/freed-$c/core" ""
done
for c in testsuite/tmp/time-targets/gcore.*; do
    gdb_session time-phases testsuite/progs/time-phases "$c" testsuite/tmp/time-targets/time.hip
done
for c in testsuite/tmp/diff/gcore.*; do
    gdb_session diff-points testsuite/progs/diff-points "$c" testsuite/tmp/diff/point1.hip
done
gdb_session reach-cases testsuite/progs/reach-cases testsuite/tmp/leakcheck-all/core ""
gdb_session sqlite3 /usr/bin/sqlite3 testsuite/tmp/leakcheck-sqlite3/core ""

# The CLI's block on the same addresses gdb names (a live widget).
for c in testsuite/tmp/gdb-commands/run.core testsuite/tmp/gdb-commands/gcore.*; do
    [ -f "$c" ] || continue
    a=$(gdb -nx -q -batch -iex "set debuginfod enabled off" -ex 'printf "%#lx\n", (long) last_red' \
            demo/widget "$c" 2>/dev/null | tail -n 1)
    case $a in 0x*) ;; *) continue ;; esac
    id=$(idof "$c")+last_red
    mkdir -p "$OUT/$id"
    blocks "$id" "$c" <<<"$a 204"
done

section "gdb plugin"
# ---------------------------------------------------------- normalize
esc () { printf '%s' "$1" | sed 's/[][\\.*^$|/]/\\&/g'; }
find "$OUT" -type f -name '*.out' -print0 | xargs -0 sed -i \
    -e "s/$(esc "$S")/<TMP>/g" -e "s/$(esc "$OUT")/<OUT>/g" \
    -e "s/$(esc "$HEAPGDB")/<HEAP.GDB>/g" -e "s/$(esc "$SO")/<PLUGIN>/g" \
    -e "s/$(esc "$CLI")/<CLI>/g" -e 's/^[^ ]*\/\.libs\/\(lt-\)\{0,1\}heapinspect: /<CLI>: /'
section normalize
n_out=$(find "$OUT" -type f -name '*.out' | wc -l)
echo "corpus.sh: $n_out outputs from ${#INPUTS[@]} inputs in $OUT ($(( $(date +%s) - start ))s; CPU of the shell, then of its commands:)" >&2
times >&2
