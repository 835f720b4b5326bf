#!/usr/bin/env bash
# Generates the local cluster's certificates and keys with openssl into
# $PKI_DIR: a CA, the API server's serving certificate, an admin client
# certificate (group system:masters), a serving certificate for the webhooks
# served on 127.0.0.1, and the service-account signing key pair.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

mkdir -p "$PKI_DIR"
cd "$PKI_DIR"

# sign NAME SUBJECT EXTENSIONS: a key and a certificate signed by the CA.
sign() {
  openssl req -new -newkey rsa:2048 -nodes -keyout "$1.key" -subj "$2" -out "$1.csr" 2>/dev/null
  printf '%s\n' "$3" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 365 \
    -extfile "$1.ext" -out "$1.crt" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}

openssl req -x509 -new -newkey rsa:2048 -nodes -keyout ca.key -subj "/CN=easyai-dev-ca" \
  -days 365 -out ca.crt 2>/dev/null
serving='basicConstraints=CA:FALSE
keyUsage=digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth'
sign apiserver "/CN=kube-apiserver" "$serving
subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:10.96.0.1,IP:$REAL_NODE_HOST_IP"
sign webhook "/CN=easyai-dev-webhooks" "$serving
subjectAltName=IP:127.0.0.1,DNS:localhost"
sign admin "/O=system:masters/CN=easyai-dev-admin" 'basicConstraints=CA:FALSE
keyUsage=digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth'
openssl genrsa -out sa.key 2048 2>/dev/null
openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null

# controller-runtime's webhook server reads tls.crt and tls.key from a directory.
mkdir -p webhook-certs
cp webhook.crt webhook-certs/tls.crt
cp webhook.key webhook-certs/tls.key
chmod 600 ./*.key webhook-certs/tls.key
