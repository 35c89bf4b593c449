#!/usr/bin/env bash
# make-pki.sh DIR — a throw-away PKI for the test apiserver (openssl). Valid for 7 days.
set -euo pipefail
P=${1:?pki dir}; mkdir -p "$P"; cd "$P"; days=7
openssl ecparam -name prime256v1 -genkey -noout -out ca.key
openssl req -x509 -new -key ca.key -subj "/CN=rehearsal-test-ca" -days $days -out ca.crt \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" 2>/dev/null
issue() { # name subject eku [subjectAltName]
  local n=$1 subj=$2 eku=$3 san=${4:-}
  openssl ecparam -name prime256v1 -genkey -noout -out "$n.key"
  openssl req -new -key "$n.key" -subj "$subj" -out "$n.csr" 2>/dev/null
  { echo "basicConstraints=CA:FALSE"; echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$eku"; [ -n "$san" ] && echo "subjectAltName=$san"; } > "$n.ext"
  openssl x509 -req -in "$n.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days $days \
    -out "$n.crt" -extfile "$n.ext" 2>/dev/null
  rm -f "$n.csr" "$n.ext"
}
issue apiserver "/CN=kube-apiserver" serverAuth \
  "DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:127.0.0.1,IP:10.0.0.1"
# Cluster admin for the test harness, the simulators and the control-plane components.
issue admin "/O=system:masters/CN=test-admin" clientAuth
# The aggregation layer's front proxy client (the apiserver presents it to aggregated APIs).
issue front-proxy-client "/CN=front-proxy-client" clientAuth
# The apiserver's identity towards kubelets (logs, exec, port-forward on a real node).
issue apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
openssl genrsa -out sa.key 2048 2>/dev/null
openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
