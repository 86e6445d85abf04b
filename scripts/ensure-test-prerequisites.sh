#!/usr/bin/env bash
# What the tests need beyond npm, from Debian's packages: Java 17+ and Maven (the local Neo4j
# launcher); Chromium (the web UI's browser tests, driven by playwright-core: no browser is
# downloaded); the discovery peers: OpenSSH's sshd, net-snmp's snmpd and tools, lldpd, redis-server,
# sudo, iproute2 (network namespaces), nftables (a host that filters TCP), ping (the ICMP sweep),
# procps and perl (the lab hosts' init), virsh (libvirt-clients: its built-in test driver is the
# libvirt host of the LIBVIRT tests), podman and busybox-static (a container and its image on a lab
# host, for the CONTAINERS tests); bind9 and dnsutils (the DNS server of the DNS tests, and dig);
# kea-dhcp4-server and kea-ctrl-agent (ISC Kea, the DHCP server of the DHCP tests); slapd, ldap-utils,
# samba, samba-ad-provision, samba-dsdb-modules, samba-vfs-modules and winbind (OpenLDAP and Samba's Active Directory domain controller, the
# directories of the LDAP tests, and ldapsearch); nmap, cups-daemon, mosquitto, nginx and
# postgresql-15 (the fingerprint lab); Go
# and govmomi's sources (the vCenter simulator). Installed when
# missing and we are root; otherwise named in a clear message (the peer tests then say they did
# not run; Java and Maven are required).
set -euo pipefail

required=()
command -v java >/dev/null 2>&1 || required+=(openjdk-17-jre-headless)
command -v mvn >/dev/null 2>&1 || required+=(maven)
[ -x /usr/bin/chromium ] || required+=(chromium)

peers=()
[ -x /usr/sbin/sshd ] || peers+=(openssh-server)
[ -x /usr/sbin/snmpd ] || peers+=(snmpd)
[ -x /usr/bin/snmpwalk ] || peers+=(snmp)
[ -x /usr/sbin/lldpd ] || peers+=(lldpd)
[ -x /usr/bin/redis-server ] || peers+=(redis-server)
[ -x /usr/bin/sudo ] || peers+=(sudo)
command -v ip >/dev/null 2>&1 || peers+=(iproute2)
[ -x /usr/sbin/nft ] || peers+=(nftables)
[ -x /usr/bin/ping ] || peers+=(iputils-ping)
command -v ps >/dev/null 2>&1 || peers+=(procps)
command -v perl >/dev/null 2>&1 || peers+=(perl)
[ -x /usr/bin/virsh ] || peers+=(libvirt-clients)
[ -x /usr/bin/podman ] || peers+=(podman)
[ -x /bin/busybox ] || peers+=(busybox-static)
# The DNS server of the DNS connector's tests (zone transfers, TSIG) and dig.
[ -x /usr/sbin/named ] || peers+=(bind9)
[ -x /usr/bin/dig ] || peers+=(dnsutils)
# The DHCP server of the DHCP connector's tests (its lease_cmds hook comes with kea-dhcp4-server) and its control agent.
[ -x /usr/sbin/kea-dhcp4 ] || peers+=(kea-dhcp4-server)
[ -x /usr/sbin/kea-ctrl-agent ] || peers+=(kea-ctrl-agent)
# The directories of the LDAP connector's tests: OpenLDAP, its tools, and Samba's AD domain controller.
[ -x /usr/sbin/slapd ] || peers+=(slapd)
[ -x /usr/bin/ldapsearch ] || peers+=(ldap-utils)
[ -x /usr/sbin/samba ] || peers+=(samba)
[ -d /usr/share/samba/setup/ad-schema ] || peers+=(samba-ad-provision)
# The directory database's own ldb modules and the file server's VFS modules (acl_xattr: the
# sysvol's ACLs), both of which a domain's provisioning loads (samba only recommends them, and
# recommendations are not installed here).
compgen -G '/usr/lib/*/samba/ldb/samba_secrets.so' >/dev/null || peers+=(samba-dsdb-modules)
compgen -G '/usr/lib/*/samba/vfs/acl_xattr.so' >/dev/null || peers+=(samba-vfs-modules)
# The domain controller starts winbindd as one of its tasks and stops when it cannot (samba only
# suggests it).
[ -x /usr/sbin/winbindd ] || peers+=(winbind)
# The fingerprint lab (FINGERPRINT's tests and benchmark): nmap, and what it recognises: CUPS's cupsd
# (a printer), mosquitto (an IoT device), nginx and PostgreSQL (a server).
[ -x /usr/bin/nmap ] || peers+=(nmap)
[ -x /usr/sbin/cupsd ] || peers+=(cups-daemon)
[ -x /usr/sbin/mosquitto ] || peers+=(mosquitto)
[ -x /usr/sbin/nginx ] || peers+=(nginx)
[ -x /usr/lib/postgresql/15/bin/postgres ] || peers+=(postgresql-15)
# The vCenter simulator (tools/vcsim): govmomi's simulator package, built with Debian's Go.
command -v go >/dev/null 2>&1 || peers+=(golang-go)
[ -d /usr/share/gocode/src/github.com/vmware/govmomi/simulator ] || peers+=(golang-github-vmware-govmomi-dev)
# The Kubernetes API server double's certificate (src/tools/kubernetes), made with openssl.
[ -x /usr/bin/openssl ] || peers+=(openssl)
# Flow exporters and the reference collector (the flow tests; tcpdump re-makes their fixtures).
[ -x /usr/sbin/softflowd ] || peers+=(softflowd)
[ -x /usr/sbin/pmacctd ] || peers+=(pmacct)
[ -x /usr/bin/nfcapd ] || peers+=(nfdump)
[ -x /usr/bin/tcpdump ] || peers+=(tcpdump)

missing=("${required[@]}" "${peers[@]}")
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "The tests need these Debian packages, which are missing: ${missing[*]}" >&2
  echo "Install them (sudo apt-get install -y ${missing[*]}) or run as root." >&2
  [ ${#required[@]} -eq 0 ] || exit 1
  echo "Going on: the discovery tests against real peers will say that they did not run." >&2
  exit 0
fi
echo "Installing test prerequisites: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# The daemons are started by the tests themselves, never as system services.
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
