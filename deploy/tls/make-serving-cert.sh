#!/usr/bin/env bash
# make-serving-cert.sh [NAMESPACE] [DAYS] — the serving certificate of the aggregated API without
# cert-manager: a private CA (kept only in the APIService's caBundle; its key is discarded) signs a
# certificate for rehearsal-api.<namespace>.svc; the certificate goes into Secret rehearsal-api-tls
# and the CA into APIService v1.api.rehearsal.dev. Run it after `kubectl apply -k deploy/base`, and
# again before DAYS (default 365) have passed: the pods re-read the renewed Secret within about two
# minutes (kubelet sync + the server's 60 s re-read), no restart needed.
set -euo pipefail
NS=${1:-rehearsal-system}; DAYS=${2:-365}; SVC=rehearsal-api
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT; cd "$work"
openssl ecparam -name prime256v1 -genkey -noout -out ca.key
openssl req -x509 -new -key ca.key -subj "/CN=rehearsal-api-ca" -days "$DAYS" -out ca.crt \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
openssl ecparam -name prime256v1 -genkey -noout -out tls.key
openssl req -new -key tls.key -subj "/CN=$SVC.$NS.svc" -out tls.csr 2>/dev/null
printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:%s.%s.svc,DNS:%s.%s.svc.cluster.local\n' \
  "$SVC" "$NS" "$SVC" "$NS" > tls.ext
openssl x509 -req -in tls.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days "$DAYS" -out tls.crt -extfile tls.ext 2>/dev/null
kubectl create secret tls "$SVC-tls" -n "$NS" --cert tls.crt --key tls.key --dry-run=client -o yaml | kubectl apply -f -
kubectl patch apiservice v1.api.rehearsal.dev --type merge -p "{\"spec\":{\"caBundle\":\"$(base64 -w0 < ca.crt)\"}}"
echo "serving certificate for $SVC.$NS.svc valid for $DAYS days; APIService caBundle updated"
