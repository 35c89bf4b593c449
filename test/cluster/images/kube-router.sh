# kube-router (built by build-node.sh from its Go module) for its NetworkPolicy firewall, with the
# iptables and ipset commands it drives, from Debian's packages. iptables is the nf_tables flavour,
# the host's too (kube-proxy runs the host's): both must write the same kernel tables.
IMAGE="rehearsal.local/kube-router:${KUBE_ROUTER_VERSION}"
CONFIG='{"Entrypoint":["/usr/local/bin/kube-router"],"Env":["PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]}'
PKGS="$(apt_memo deb_closure iptables ipset)"
inputs() { sha256sum < "$(node_bin kube-router)"; apt_memo deb_versions $PKGS busybox-static; }
rootfs() {
  local dir=$1 t
  debs_install "$dir" $PKGS
  # Debian points iptables at the nft or legacy flavour with update-alternatives in a maintainer
  # script, which dpkg-deb -x does not run: make the nft links by hand.
  for t in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
    ln -sfn xtables-nft-multi "$dir/usr/sbin/$t"
  done
  busybox_install "$dir"
  base_files "$dir"
  mkdir -p "$dir/usr/local/bin" "$dir/run" "$dir/var/lib/kube-router"
  cp "$(node_bin kube-router)" "$dir/usr/local/bin/kube-router"
  check_linked "$dir" /usr/sbin/xtables-nft-multi /usr/sbin/ipset
}
