#!/usr/bin/env bash
# What the tests need beyond npm: Java 17+ and Maven (the local Neo4j launcher), and snmpd (the
# SNMP connector's real peer). Installed from Debian's packages when missing and we are root;
# otherwise named in a clear error.
set -euo pipefail

missing=()
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
[ -x /usr/sbin/snmpd ] || missing+=(snmpd)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "The tests need these Debian packages, which are missing: ${missing[*]}" >&2
  echo "Install them (sudo apt-get install -y ${missing[*]}) or run as root." >&2
  exit 1
fi
echo "Installing test prerequisites: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
