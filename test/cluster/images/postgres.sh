# PostgreSQL 15 from Debian's packages (postgresql-15, postgresql-client-15 for psql in exec checks
# and backup hooks, and the libraries they link), busybox for the entrypoint's shell, and an
# entrypoint (images/postgres/docker-entrypoint.sh) that behaves like the official image's:
# POSTGRES_PASSWORD, POSTGRES_USER, POSTGRES_DB, /docker-entrypoint-initdb.d.
# LLVM is left out (about 100 MB; only the optional JIT loads it, so jit is off).
IMAGE=rehearsal.local/postgres:15
CONFIG='{"Entrypoint":["/usr/local/bin/docker-entrypoint.sh"],"Env":["PATH=/usr/local/bin:/usr/lib/postgresql/15/bin:/usr/bin:/bin","PGDATA=/var/lib/postgresql/data"],"ExposedPorts":{"5432/tcp":{}},"StopSignal":"SIGINT"}'
PKGS="$(apt_memo deb_closure postgresql-15 postgresql-client-15 -- libllvm14)"
inputs() { apt_memo deb_versions $PKGS tzdata busybox-static; }
rootfs() {
  local dir=$1
  debs_install "$dir" $PKGS tzdata
  rm -rf "$dir"/usr/lib/postgresql/15/lib/llvmjit* "$dir"/usr/lib/postgresql/15/lib/bitcode "$dir"/etc/postgresql-common \
    "$dir"/usr/lib/x86_64-linux-gnu/gconv
  printf 'jit = off\n' >> "$dir/usr/share/postgresql/15/postgresql.conf.sample"
  busybox_install "$dir"
  base_files "$dir" postgres:999
  mkdir -p "$dir/usr/local/bin" "$dir/var/lib/postgresql/data" "$dir/run/postgresql" "$dir/docker-entrypoint-initdb.d"
  cp "$here/postgres/docker-entrypoint.sh" "$dir/usr/local/bin/"
  chown 999:999 "$dir/var/lib/postgresql" "$dir/var/lib/postgresql/data" "$dir/run/postgresql"
  chmod 700 "$dir/var/lib/postgresql/data"
  check_linked "$dir" /usr/lib/postgresql/15/bin/postgres /usr/lib/postgresql/15/bin/initdb /usr/lib/postgresql/15/bin/psql
}
