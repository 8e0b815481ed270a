#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for the tests: initdb in a fresh temporary directory,
# listening on a unix socket there only (no TCP port), fsync off. Each start makes a new
# directory, so concurrent runs never share a cluster, and a run that dies leaves nothing
# another run would trip over.
#
#   scripts/pg-test.sh run CMD [ARGS...]   start a cluster, run CMD with
#                                          ATMA_TEST_DATABASE_URL set, stop it, exit as CMD did
#   scripts/pg-test.sh start               start one and print shell assignments of its
#                                          directory (ATMA_PG_DIR) and ATMA_TEST_DATABASE_URL
#   scripts/pg-test.sh stop DIR            stop the cluster in DIR and remove DIR
#
# PostgreSQL's server refuses to run as root: as root the cluster runs as the `postgres`
# system user (created when missing). The server binaries are found under
# /usr/lib/postgresql/*/bin or through pg_config; when there are none, and we are root,
# the distribution's postgresql package is installed once.
set -euo pipefail

find_bin() {
	local d
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		[[ -x $d/initdb && -x $d/pg_ctl ]] && { echo "$d"; return 0; }
	done
	if command -v pg_config >/dev/null 2>&1; then
		d=$(pg_config --bindir)
		[[ -x $d/initdb && -x $d/pg_ctl ]] && { echo "$d"; return 0; }
	fi
	command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return 0; }
	return 1
}

pgbin() {
	local d
	if d=$(find_bin); then
		echo "$d"
		return 0
	fi
	if [[ $(id -u) -ne 0 ]]; then
		echo "pg-test: no PostgreSQL server binaries (initdb, pg_ctl); install the postgresql package" >&2
		return 1
	fi
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "pg-test: no PostgreSQL server binaries (initdb, pg_ctl) and no apt-get; install PostgreSQL" >&2
		return 1
	fi
	echo "pg-test: no PostgreSQL server binaries; installing the postgresql package" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y postgresql-15 >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null && apt-get install -y postgresql-15 >/dev/null 2>&1; } ||
		apt-get install -y postgresql >/dev/null
	find_bin
}

# as runs a command as the cluster's owner: ourselves, or postgres when we are root.
as() {
	if [[ $(id -u) -eq 0 ]]; then
		# From /: the caller's directory may be closed to postgres.
		su postgres -s /bin/sh -c "cd / && $(printf '%q ' "$@")"
	else
		"$@"
	fi
}

start() {
	local bin dir
	bin=$(pgbin)
	if [[ $(id -u) -eq 0 ]] && ! id postgres >/dev/null 2>&1; then
		useradd --system --no-create-home --shell /usr/sbin/nologin postgres
	fi
	# Short: the socket path (DIR/.s.PGSQL.5432) must stay under 108 bytes.
	dir=$(mktemp -d /tmp/atma-pg.XXXXXX)
	chmod 755 "$dir"
	[[ $(id -u) -eq 0 ]] && chown postgres "$dir"
	if ! as "$bin/initdb" -D "$dir/data" -U atma --auth=trust --locale=C -E UTF8 --no-sync >"$dir/initdb.log" 2>&1; then
		cat "$dir/initdb.log" >&2
		rm -rf "$dir"
		return 1
	fi
	if ! as "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
		-o "-k $dir -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
		start >/dev/null; then
		cat "$dir/server.log" >&2
		rm -rf "$dir"
		return 1
	fi
	if ! as "$bin/psql" -h "$dir" -U atma -d postgres -qAt -c 'CREATE DATABASE atma_test' >/dev/null; then
		stop "$dir"
		return 1
	fi
	echo "$dir"
}

stop() {
	local dir=$1 bin
	[[ -d $dir/data ]] || { rm -rf "$dir"; return 0; }
	bin=$(find_bin)
	as "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	rm -rf "$dir"
}

url() { echo "postgres://atma@/atma_test?host=$1&sslmode=disable"; }

case ${1:-} in
run)
	shift
	[[ $# -gt 0 ]] || { echo "usage: $0 run CMD [ARGS...]" >&2; exit 2; }
	dir=$(start)
	trap 'stop "$dir"' EXIT
	export ATMA_TEST_DATABASE_URL
	ATMA_TEST_DATABASE_URL=$(url "$dir")
	echo "pg-test: PostgreSQL in $dir (ATMA_TEST_DATABASE_URL=$ATMA_TEST_DATABASE_URL)" >&2
	status=0
	"$@" || status=$?
	exit "$status"
	;;
start)
	dir=$(start)
	# Shell assignments: eval "$(scripts/pg-test.sh start)" sets both.
	echo "ATMA_PG_DIR='$dir'"
	echo "export ATMA_TEST_DATABASE_URL='$(url "$dir")'"
	;;
stop)
	[[ -n ${2:-} ]] || { echo "usage: $0 stop DIR" >&2; exit 2; }
	stop "$2"
	;;
*)
	echo "usage: $0 run CMD [ARGS...] | start | stop DIR" >&2
	exit 2
	;;
esac
