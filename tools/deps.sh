#!/bin/sh
# Make sure the Debian packages btslab needs are installed.
#
#   tools/deps.sh PACKAGE...
#
# As root, installs the missing ones with apt-get (Debian's archive only).
# Otherwise names them and fails, so `make` stops with a clear message.
set -u

missing=""
for p in "$@"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
	case "$status" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "btslab: missing Debian packages:$missing" >&2
	echo "btslab: install them with: sudo apt-get install$missing" >&2
	exit 1
fi
echo "btslab: installing missing Debian packages:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 || exit 1
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2 || {
	echo "btslab: apt-get could not install:$missing" >&2
	exit 1
}
