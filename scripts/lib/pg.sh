# Sourced by scripts that need a throwaway PostgreSQL server:
#
#   . scripts/lib/pg.sh
#   pg_start DIR      starts one in DIR (made for it), sets pg_url and
#                     pg_pid; pg_stop stops it (call it from the trap)
#
# It uses Debian's postgresql-15 binaries (make need-postgres installs
# them) or those in $CTXLS_PG_BINDIR, and runs the server as nobody
# under root (PostgreSQL refuses root).
pg_bin=${CTXLS_PG_BINDIR:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
pg_pid=
pg_url=

pg_start() {
	local dir=$1 as=() port
	[ -x "$pg_bin/postgres" ] || { echo "no PostgreSQL server binaries (make need-postgres, or set CTXLS_PG_BINDIR)" >&2; return 2; }
	mkdir -p "$dir"
	if [ "$(id -u)" = 0 ]; then
		as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
		chmod 755 "$(dirname "$dir")"
		chown 65534:65534 "$dir"
	fi
	"${as[@]}" "$pg_bin/initdb" -D "$dir/data" -U ctxls --auth=trust --no-sync -E UTF8 --locale=C >/dev/null
	for _ in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 20000))
		"${as[@]}" "$pg_bin/postgres" -D "$dir/data" -p "$port" -c listen_addresses=127.0.0.1 -c unix_socket_directories= \
			-c shared_buffers=256MB -c fsync=off >"$dir/log" 2>&1 &
		pg_pid=$!
		for _ in $(seq 100); do
			if "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$port"; then
				pg_url="postgres://ctxls@127.0.0.1:$port/postgres"
				return 0
			fi
			kill -0 "$pg_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -QUIT "$pg_pid" 2>/dev/null
		wait "$pg_pid" 2>/dev/null
		pg_pid=
	done
	echo "PostgreSQL did not start:" >&2
	tail -5 "$dir/log" >&2
	return 1
}

pg_stop() {
	if [ -n "$pg_pid" ]; then
		kill -QUIT "$pg_pid" 2>/dev/null
		wait "$pg_pid" 2>/dev/null
		pg_pid=
	fi
}
