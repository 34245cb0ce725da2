// The node probe's NVIDIA and HAMi blocks (part of NODE_BODY, nodeScript.ts): nvidia-smi's two CSV queries, each
// compute app's cgroup and HAMi limit variables, the default table when it is needed, and HAMi's host state.
// $R is the host root, as in the rest of the node probe; the helpers (smiquery, zgrepok, hamicache...) are its.
import { CONTAINER_APPS_QUERY } from './containerScript.ts';

/** At most this many nvidia-smi compute apps get their cgroup and limit variables read. */
export const NVIDIA_PID_LIMIT = 1000;

/** The node probe's two nvidia-smi CSV queries (the parsers read the fields in this order); the apps query is the container probe's. */
export const NODE_GPU_QUERY =
  'index,uuid,name,pci.bus_id,driver_version,memory.total,memory.reserved,memory.used,memory.free,utilization.gpu,compute_mode,mig.mode.current';
export const NODE_APPS_QUERY = CONTAINER_APPS_QUERY;

/** nvidia-smi's two CSV queries, kept in $_smi_gpu and $_smi_apps for the blocks after them. */
export const NVIDIA_SMI_QUERIES = String.raw`# NVIDIA: the two CSV queries (kept in variables, each cut at $MAXC, for the steps after them).
begin nvidia-smi.gpu
_smi=''
if have nvidia-smi; then
  _smi_gpu=$(smiquery --query-gpu=${NODE_GPU_QUERY} --format=csv,noheader,nounits)
  smiprint "$_smi_gpu"
  _smi=1
else
  mark "missing nvidia-smi"
fi
finish nvidia-smi.gpu
begin nvidia-smi.apps
if [ -n "$_smi" ]; then
  _smi_apps=$(smiquery --query-compute-apps=${NODE_APPS_QUERY} --format=csv,noheader,nounits)
  smiprint "$_smi_apps"
else
  mark "missing nvidia-smi"
fi
finish nvidia-smi.apps
`;

/** Each compute app's cgroup and HAMi limit variables, and the default table when a query failed or MIG is on. */
const NVIDIA_SMI_PROCESSES = String.raw`# Each compute app's pid (digits only, at most ${NVIDIA_PID_LIMIT}): its cgroup (for the pod) and, of its environ, ONLY
# HAMi's limit variables: grep keeps nothing else, so no other value (no secret) leaves the node. A pid this /proc
# does not have means nvidia-smi runs in another PID namespace.
# One awk takes the pids; two greps then read every pid's file at once, as NUL-separated records (-z), and tr turns
# each newline inside a record into a tab (cgroup) or a space (environ) before each NUL becomes a newline, so
# nothing a process controls forges a line. A cgroup file has no NUL: one record (-m 1). environ's variables must
# match whole (-x: busybox lets ^ match after a newline inside a value), at most 24 of 400 bytes each (cut: an
# interval like .{0,256} costs GNU grep a quarter of a second to compile). zgrepok proves this grep does all
# that; without such a grep or awk, a loop over the pids reads them one by one. environ's errors (a file the probe may not read, a
# pid this /proc has not) are kept, with its rc. Forking per pid cost 80x the queries (bench/nvidiaProbe.mjs).
begin nvidia-smi.pids
if [ -n "$_smi" ]; then
  _envkeys='(CUDA_DEVICE_MEMORY_LIMIT(_[0-9]{1,3})?|CUDA_DEVICE_MEMORY_SHARED_CACHE|CUDA_DISABLE_CONTROL)='
  _files=''
  if zgrepok; then
    # awk lists each pid's file (the shell's own string handling is quadratic in busybox), " @over" past the limit.
    _awkpids='$2 ~ /^ *[0-9]+ *$/ { p = $2; gsub(/ /, "", p); if (length(p) > 10) next; if (++n > max) { printf " @over"; exit } printf " %s/%s", p, file }'
    _files=$(printf '%s\n' "$_smi_apps" | awk -F, -v max=${NVIDIA_PID_LIMIT} -v file=cgroup "$_awkpids" 2>/dev/null)
    _environs=$(printf '%s\n' "$_smi_apps" | awk -F, -v max=${NVIDIA_PID_LIMIT} -v file=environ "$_awkpids" 2>/dev/null)
    case $_files in *' @over') mark "missing pids beyond ${NVIDIA_PID_LIMIT}"; _files=${'$'}{_files% @over}; _environs=${'$'}{_environs% @over} ;; esac
    set -f
    set -- $_files
    set +f
    _n=$#
  fi
  if [ -z "$_files" ]; then
    _n=0
    _seen=' '
    _oldifs=$IFS
    IFS=$NL
    set -f
    set -- $_smi_apps
    set +f
    IFS=$_oldifs
    for _line; do
      case $_line in *,*) ;; *) continue ;; esac
      _pid=${'$'}{_line#*,}
      _pid=${'$'}{_pid%%,*}
      _pid=${'$'}{_pid#"${'$'}{_pid%%[! ]*}"}
      _pid=${'$'}{_pid%"${'$'}{_pid##*[! ]}"}
      case $_pid in ''|*[!0-9]*|???????????*) continue ;; esac
      case $_seen in *" $_pid "*) continue ;; esac
      _n=$((_n + 1))
      if [ "$_n" -gt ${NVIDIA_PID_LIMIT} ]; then mark "missing pids beyond ${NVIDIA_PID_LIMIT}"; break; fi
      _seen="$_seen$_pid "
      _p="$R/proc/$_pid"
      if [ ! -d "$_p" ]; then mark "missing $_p"; continue; fi
      onefile "$_p/cgroup"
      mark "file $_p/environ"
      { $T tr '\000\n' '\n ' 2>/dev/null < "$_p/environ" || echo '@environ-unreadable'; } | grep -E "^$_envkeys|^@environ-unreadable$" | head -c 8192
    done
  fi
  if [ -n "$_files" ] && [ "$_n" -gt 0 ]; then
    # Both run in $R/proc: the arguments are digits and names, nothing the shell could split or glob.
    mark "file $R/proc/pid-cgroups"
    ( cd "$R/proc" 2>/dev/null && exec grep -a -z -H -m 1 '' $_files 2>/dev/null ) | tr '\n\000' '\t\n' | head -c $((_n * 16384))
    mark "file $R/proc/environ-keys"
    # fd 4 carries grep's errors and rc into _err; its matches go through tr to fd 3, the output. grep gets
    # neither: busybox timeout's watcher keeps the fds it inherits open for a second after grep ends.
    { _err=$( { { cd "$R/proc" 2>/dev/null || { echo 'rc cd' >&4; exit; }; $T grep -a -z -H -x -m 24 -E "$_envkeys.*" $_environs 2>&4 3>&- 4>&-; echo "rc $?" >&4; } | tr '\000\n' '\n ' | cut -c 1-400 | head -c $((_n * 16384)) >&3; } 4>&1 ); } 3>&1
    mark "file $R/proc/environ-status"
    printf '%s\n' "$_err"
  fi
fi
finish nvidia-smi.pids
# The default table only when a query failed or a GPU is in MIG mode: it lists MIG devices and the
# processes by GPU instance (GI) and compute instance (CI), which the CSV queries do not.
if [ -n "$_smi" ]; then
  case "$_smi_gpu$_smi_apps" in
    *"rc 0@@"*"rc 0@@"*) case $_smi_gpu in *Enabled*) cmd nvidia-smi.table nvidia-smi ;; esac ;;
    *) cmd nvidia-smi.table nvidia-smi ;;
  esac
fi
`;

/** What the light probe reads of NVIDIA's too: the queries and each process's pod. */
export const NVIDIA_SMI_BLOCKS = NVIDIA_SMI_QUERIES + NVIDIA_SMI_PROCESSES;

/** The driver's version and HAMi's host state (its preload file, library and shared-region caches). */
const NVIDIA_HOST_BLOCKS = String.raw`files nvidia-driver "$R/proc/driver/nvidia/version"

# HAMi host state: the preload file, the library, and per-container shared-region caches, in the
# directory HAMi's chart put them (devicePlugin.libPath, default /usr/local/vgpu).
H="$R${'$'}{GPUMEM_HAMI_DIR:-/usr/local/vgpu}"
begin hami.host
onefile "$H/ld.so.preload"
if [ -d "$H" ]; then
  mark "file $H/ls"
  ls -ln "$H" 2>&1 | head -c 65536
  if [ -d "$H/containers" ]; then
    mark "file $H/containers/ls"
    ls -lnR "$H/containers" 2>&1 | head -c 262144
  fi
fi
finish hami.host
begin hami.caches
for _f in "$H"/containers/*/*.cache; do
  [ -f "$_f" ] || continue
  case $_f in *"$NL"*) continue ;; esac
  hamicache "$_f"
done
finish hami.caches

`;

export const NODE_NVIDIA_BLOCKS = NVIDIA_SMI_BLOCKS + NVIDIA_HOST_BLOCKS;
