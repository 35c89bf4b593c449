#!/bin/sh
# PostgreSQL from Debian's packages, started the way the official postgres image starts it:
#   - as root, it makes PGDATA belong to the postgres user (uid 999) and drops to that user;
#   - on first start (empty PGDATA) it runs initdb with POSTGRES_USER (default postgres) and
#     POSTGRES_PASSWORD (required), creates POSTGRES_DB (default: the user's name) and runs the
#     *.sql files in /docker-entrypoint-initdb.d against it (single-user mode: no client needed);
#   - then it runs postgres in the foreground, listening on every address of the pod.
# Password authentication (scram-sha-256) for every TCP client.
set -eu
: "${PGDATA:=/var/lib/postgresql/data}"
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /run/postgresql
  chown 999:999 "$PGDATA" /run/postgresql
  chmod 700 "$PGDATA"
  # busybox's su, run by root, needs no password and execs (no parent left behind).
  exec su postgres -s /bin/sh -c 'exec "$0" "$@"' "$0" "$@"
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "POSTGRES_PASSWORD is not set: the database would have no password" >&2
    exit 1
  fi
  user="${POSTGRES_USER:-postgres}"
  db="${POSTGRES_DB:-$user}"
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb -D "$PGDATA" --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    echo "CREATE DATABASE \"$db\";" | postgres --single -D "$PGDATA" -j postgres >/dev/null
  fi
  for f in /docker-entrypoint-initdb.d/*.sql; do
    [ -f "$f" ] || continue
    echo "running $f"
    postgres --single -D "$PGDATA" -j "$db" < "$f" >/dev/null
  done
  echo "database initialised"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/run/postgresql "$@"
