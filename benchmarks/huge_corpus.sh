#!/usr/bin/env bash
# huge_corpus.sh — the opt-in `huge` set beside make-corpus.sh's `full` one: the PDFs of
# the three TeX Live documentation packages make-corpus.sh leaves out (latex-extra,
# publishers, fonts-extra; about 4,000 PDFs), for the 1M-page benchmark
# (benchmarks/million.py). Same conventions as shared/tools/make-corpus.sh: packages are
# fetched with `apt-get download` (never installed) and unpacked with `dpkg-deb -x`; flat
# safe names [a-z0-9_-]+.pdf; a file byte-identical to one in full/ or already kept is
# skipped (sha256).
#
# Output (under $CORPUS, default ./corpus):
#   huge/              the unique PDFs of the three packages, not in full/
#   HUGE_MANIFEST.txt  name, bytes, package, version, source path
# Env: CORPUS=DIR  DEBS=DIR (the .deb cache, default $CORPUS/debs)  FULL=DIR (default $CORPUS/full)
# Usage: bash benchmarks/huge_corpus.sh   (apt-get update needs root; re-running reuses the .debs)
set -euo pipefail
export LC_ALL=C

CORPUS=${CORPUS:-./corpus}
DEBS=${DEBS:-$CORPUS/debs}
FULL=${FULL:-$CORPUS/full}
PKGS=(texlive-latex-extra-doc texlive-publishers-doc texlive-fonts-extra-doc)

log() { printf '[huge-corpus %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }

mkdir -p "$DEBS"
declare -A VER DEB
cd "$DEBS"
for p in "${PKGS[@]}"; do
  v=$(apt-cache policy "$p" | awk '/Candidate:/{print $2}')
  if [[ -z "$v" || "$v" == "(none)" ]]; then
    log "apt-get update (no candidate for $p yet)"
    apt-get update -qq
    v=$(apt-cache policy "$p" | awk '/Candidate:/{print $2}')
  fi
  if [[ -z "$v" || "$v" == "(none)" ]]; then log "WARN: $p not available, skipped"; continue; fi
  VER[$p]=$v
  vf=${v//:/%3a}
  f=$(ls -1 "${p}_${vf}"_*.deb 2>/dev/null | head -1 || true)
  if [[ -z "$f" ]]; then
    log "apt-get download $p=$v"
    apt-get download -q "$p=$v" 2>&1 | grep -v 'unsandboxed' >&2 || true
    f=$(ls -1 "${p}_${vf}"_*.deb 2>/dev/null | head -1 || true)
    [[ -n "$f" ]] || { log "ERROR: download of $p failed"; exit 1; }
  fi
  DEB[$p]=$DEBS/$f
done
cd - >/dev/null

WORK=$(mktemp -d "$CORPUS/.huge.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
STAGE=$WORK/huge
mkdir -p "$STAGE"
: > "$WORK/rows.tsv"
declare -A SEEN_SHA USED_NAME
if [[ -d "$FULL" ]]; then
  log "hashing $FULL (files already there are skipped)"
  while read -r sha _; do SEEN_SHA[$sha]=1; done < <(find "$FULL" -name '*.pdf' -print0 | xargs -0 -r sha256sum)
fi
ndup=0
for p in "${PKGS[@]}"; do
  [[ -n "${DEB[$p]:-}" ]] || continue
  log "unpack $p"
  x=$WORK/x/$p
  mkdir -p "$x"
  dpkg-deb -x "${DEB[$p]}" "$x"
  while IFS= read -r -d '' src; do
    rel=${src#"$x"/}
    tmp=$WORK/cur.pdf
    case "$src" in
      *.gz) gzip -dc -- "$src" > "$tmp" ;;
      *)    cp -- "$src" "$tmp" ;;
    esac
    sha=$(sha256sum "$tmp" | cut -c1-64)
    if [[ -n "${SEEN_SHA[$sha]:-}" ]]; then ndup=$((ndup+1)); continue; fi
    SEEN_SHA[$sha]=1
    b=${rel#usr/share/}; b=${b#doc/}; b=${b#texlive-doc/}; b=${b#texlive/texmf-dist/}
    b=${b%.gz}; b=${b%.[pP][dD][fF]}
    b=$(printf '%s' "$b" | tr 'A-Z' 'a-z' | sed -e 's#/#_#g' -e 's/[^a-z0-9_-]/-/g' -e 's/--*/-/g' -e 's/__*/_/g' -e 's/^[-_]*//' -e 's/[-_]*$//')
    [[ -n "$b" ]] || b=doc
    (( ${#b} > 120 )) && b=${b:0:120}
    n=$b; i=2
    while [[ -n "${USED_NAME[$n]:-}" || -e "$FULL/$n.pdf" ]]; do n=$b-$i; i=$((i+1)); done
    USED_NAME[$n]=1
    mv "$tmp" "$STAGE/$n.pdf"
    printf '%s\t%s\t%s\t%s\t/%s\n' "$n.pdf" "$(stat -c %s "$STAGE/$n.pdf")" "$p" "${VER[$p]}" "$rel" >> "$WORK/rows.tsv"
  done < <(find "$x" -type f \( -iname '*.pdf' -o -iname '*.pdf.gz' \) -print0 | sort -z)
  rm -rf "$x"
done

rm -rf "$CORPUS/huge.old"
[[ -e "$CORPUS/huge" ]] && mv "$CORPUS/huge" "$CORPUS/huge.old"
mv "$STAGE" "$CORPUS/huge"
rm -rf "$CORPUS/huge.old"
{
  echo "# pdfindex huge set — built by benchmarks/huge_corpus.sh on $(date -u +%F)"
  for p in "${PKGS[@]}"; do
    [[ -n "${VER[$p]:-}" ]] || continue
    printf '#   %-32s %-20s %s\n' "$p" "${VER[$p]}" "$(awk -F'\t' -v p="$p" '$3==p' "$WORK/rows.tsv" | wc -l)"
  done
  awk -F'\t' '{by+=$2; n++} END{printf "# totals: huge=%d files, %d bytes\n", n, by}' "$WORK/rows.tsv"
  echo "# skipped (byte-identical to full/ or to another kept file): $ndup"
  printf '#name\tbytes\tpackage\tversion\tsource_path\n'
  cat "$WORK/rows.tsv"
} > "$CORPUS/HUGE_MANIFEST.txt"
log "done: $(grep '^# totals' "$CORPUS/HUGE_MANIFEST.txt")"
