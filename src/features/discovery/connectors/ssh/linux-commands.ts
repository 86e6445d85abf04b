// The fixed commands the SSH connector runs on a Linux host, one per scope, each printing
// sections headed "@@name" that linux-parsers.ts reads. Nothing from a target or a device is ever
// put into a command: they are constants.
export const SECTION = '@@';

// A non-root login's PATH leaves out the sbin folders, where lldpctl and ip may live.
const PATH = 'export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"; ';

const COMMANDS = {
  facts: [
    'echo @@hostname; hostname 2>/dev/null || cat /proc/sys/kernel/hostname',
    'echo @@fqdn; hostname -f 2>/dev/null',
    'echo @@os-release; cat /etc/os-release 2>/dev/null || cat /usr/lib/os-release 2>/dev/null',
    'echo @@uname; uname -srm',
    'echo @@cpus; nproc 2>/dev/null || getconf _NPROCESSORS_ONLN',
    'echo @@meminfo; grep MemTotal /proc/meminfo',
    'echo @@dmi; for f in sys_vendor product_name product_serial; do printf "%s=%s\\n" "$f" "$(cat /sys/class/dmi/id/$f 2>/dev/null)"; done',
    'echo @@virt; systemd-detect-virt --container 2>/dev/null; systemd-detect-virt --vm 2>/dev/null',
    'echo @@container-markers; test -f /.dockerenv && echo docker; test -f /run/.containerenv && echo podman; grep -qa "container=" /proc/1/environ 2>/dev/null && echo environ',
    'echo @@hypervisor-flag; grep -c "^flags.* hypervisor" /proc/cpuinfo',
    // Each fact is optional: what a host lacks is left out, never an error.
    'exit 0',
  ].join('; '),
  packages: [
    'if command -v dpkg-query >/dev/null 2>&1; then echo @@dpkg; dpkg-query -W -f \'${db:Status-Abbrev}\\t${binary:Package}\\t${Version}\\t${Maintainer}\\n\';',
    'elif command -v rpm >/dev/null 2>&1; then echo @@rpm; rpm -qa --qf \'%{NAME}\\t%{VERSION}-%{RELEASE}\\t%{VENDOR}\\t%{INSTALLTIME}\\n\';',
    'elif command -v apk >/dev/null 2>&1; then echo @@apk; apk list --installed 2>/dev/null; fi',
  ].join(' '),
  // "self" is the pid of ps itself, so that the connector can leave its own session out.
  processes: 'echo @@self; echo $$; echo @@ps; exec ps -eo pid=,ppid=,user:32=,stat=,rss=,pcpu=,unit:100=,args=',
  processNames: 'echo @@comm; exec ps -eo pid=,comm=',
  // ss names the process of another user's socket only to root: sudo where the host allows it.
  listening: 'echo @@listening; sudo -n ss -Hlntup 2>/dev/null || ss -Hlntup',
  connections: 'echo @@established; sudo -n ss -Htnp state established 2>/dev/null || ss -Htnp state established',
  interfaces: 'echo @@ip; ip -j addr show; echo; echo @@speed; for i in /sys/class/net/*; do printf "%s\\t%s\\n" "${i##*/}" "$(cat "$i/speed" 2>/dev/null)"; done',
  // Absent systemd (a container), services come from the listening sockets instead.
  systemd: 'if [ -d /run/systemd/system ]; then echo @@systemd; systemctl show --type=service --all --no-pager -p Id -p Description -p ActiveState -p SubState -p UnitFileState -p MainPID \'*\'; fi',
  // lldpd's control socket: the default places, and any bound socket whose path names lldp (an
  // lldpd started with -u elsewhere; lldpd rewrites its command line, so /proc/net/unix tells).
  // The first that answers is read; where lldpd runs but no socket can be found, the output says
  // so (the run records it); where no lldpd runs there is nothing to read, which is no error.
  lldp: [
    'found=""; for s in /run/lldpd.socket /var/run/lldpd.socket $(awk \'NR > 1 && $NF ~ /lldp/ { print $NF }\' /proc/net/unix 2>/dev/null | sort -u); do [ -S "$s" ] && case " $found " in *" $s "*) ;; *) found="$found $s";; esac; done;',
    'if [ -n "$found" ]; then for s in $found; do out=$(lldpctl -u "$s" -f json0) && { echo @@lldp; echo "$out"; exit 0; }; done; exit 1;',
    'elif ps -eo comm= 2>/dev/null | grep -qx lldpd; then echo @@lldp-unreadable; echo "lldpd runs but none of its control sockets was found"; fi',
  ].join(' '),
} as const;

export type LinuxCommand = keyof typeof COMMANDS;
export const LINUX_COMMANDS = Object.fromEntries(Object.entries(COMMANDS).map(([name, command]) => [name, PATH + command])) as Record<LinuxCommand, string>;
