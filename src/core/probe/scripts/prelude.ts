// Shell functions every probe script shares. POSIX sh only: it must run under busybox ash and dash.
// Strictly read-only: reads files and runs read-only tools; never writes, never creates temp files.
export const PRELUDE = String.raw`
umask 077
LC_ALL=C
export LC_ALL
PATH="$PATH:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
N=$GPUMEM_NONCE
R=$GPUMEM_ROOT
MAXF=262144
MAXC=1048576
NL='
'
have() { command -v "$1" >/dev/null 2>&1; }
# T bounds one command; TL one that reads thousands of files (a batched sweep, under one timeout for all its batches).
T=''
TL=''
if have timeout; then
  if timeout 2 true >/dev/null 2>&1; then T='timeout 10'; TL='timeout 60'
  elif timeout -t 2 true >/dev/null 2>&1; then T='timeout -t 10'; TL='timeout -t 60'
  fi
fi
mark() { printf '\n@@gpumem:%s:%s@@\n' "$N" "$*"; }
begin() { mark "begin $1"; }
finish() { mark "end $1"; }
# cmd SECTION PROGRAM ARGS...: a read-only command's output (stderr too), bounded in time and size.
cmd() {
  _s=$1; shift
  begin "$_s"
  if have "$1"; then
    { $T "$@" 2>&1; printf '\n@@gpumem:%s:rc %s@@\n' "$N" "$?"; } | head -c "$MAXC"
  else
    mark "missing $1"
  fi
  finish "$_s"
}
# onefile PATH: one file's content, bounded, unless its name holds a newline (it would break the format).
onefile() {
  case $1 in *"$NL"*) return ;; esac
  if [ -f "$1" ] || [ -c "$1" ]; then
    mark "file $1"
    if [ -r "$1" ]; then head -c "$MAXF" "$1" 2>&1; else printf 'gpumem: permission denied\n'; fi
  fi
}
# hamicache PATH: one HAMi shared-region cache file, read at fixed offsets with od (layout: HAMi-core
# multiprocess_memory_limit.h on x86-64): header, device count, limits, process count, the first 16 slots.
hamicache() {
  mark "file $1"
  printf 'size=%s\n' "$(wc -c 2>/dev/null < "$1" | tr -d ' ')"
  if have od; then
    printf 'header='; od -A n -v -t d4 -N 16 "$1" 2>/dev/null | tr -s ' \n' '  '; printf '\n'
    printf 'device_num='; od -A n -v -t u8 -j 56 -N 8 "$1" 2>/dev/null | tr -d ' \n'; printf '\n'
    printf 'limits='; od -A n -v -t u8 -j 1600 -N 128 "$1" 2>/dev/null | tr -s ' \n' '  '; printf '\n'
    printf 'proc_num='; od -A n -v -t d4 -j 2008896 -N 4 "$1" 2>/dev/null | tr -d ' \n'; printf '\n'
    _i=0
    while [ "$_i" -lt 16 ]; do
      _off=$((1856 + _i * 1960))
      printf 'slot%s=' "$_i"; od -A n -v -t d4 -j "$_off" -N 8 "$1" 2>/dev/null | tr -s ' \n' '  '
      printf 'status='; od -A n -v -t d4 -j $((_off + 1928)) -N 4 "$1" 2>/dev/null | tr -d ' \n'
      printf ' used='; od -A n -v -t u8 -j $((_off + 8 + 32)) -N 8 "$1" 2>/dev/null | tr -d ' \n'; printf '\n'
      _i=$((_i + 1))
    done
  else
    printf 'od-missing\n'
  fi
}
# files SECTION PATH...: every existing file among PATH..., bounded each.
files() {
  _s=$1; shift
  begin "$_s"
  for _f in "$@"; do onefile "$_f"; done
  finish "$_s"
}
`;
