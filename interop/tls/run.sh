#!/usr/bin/env bash
# interop/tls/run.sh — the Java client and Kafka's CLI tools over SSL, with stores made by keytool.
#
# Makes a CA, a broker key store (PKCS12, keytool's default format), a JKS trust store and a client
# key store with keytool, starts its own Karst with a PLAINTEXT and an SSL listener
# (ssl.client.auth=required, ssl.principal.mapping.rules mapping CN=<name>,OU=... to <name>), then:
#   topics_over_ssl        kafka-topics --command-config (SSL, JKS trust store, PKCS12 key store)
#   console_round_trip     kafka-console-producer / kafka-console-consumer over SSL
#   no_client_cert_refused a client without a key store gets no answer (required client auth)
#   topics_over_ssl_without_client_cert  kafka-topics without a key store on SSL_NOAUTH
#                          (ssl.client.auth=none) lists topics
#   rotate_keystore        kafka-configs --alter listener.name.ssl.ssl.keystore.location (a store
#                          signed by a new CA, over PLAINTEXT), then a client trusting only the new
#                          CA lists topics over SSL: Kafka's dynamic SSL update
#   kafkajs_*              kafkajs 2.2.4 (kafkajs.js, ../node's npm install) produces and consumes
#                          with a group: over SSL verifying the server against the CA (listener
#                          SSL_NOAUTH, ssl.client.auth=none), with a client certificate (mTLS, SSL),
#                          over SASL_SSL and SASL_PLAINTEXT with PLAIN, SCRAM-SHA-256,
#                          SCRAM-SHA-512 (a user kafka-configs adds) and OAUTHBEARER (an unsecured
#                          JWT); an untrusted server, a missing client certificate, a wrong SCRAM
#                          password and an expired token are refused
# Needs java (keytool), node with ../node's packages (npm ci) and the jars of ../kafka (fetch.sh). KARST_BIN=path uses that binary instead
# of building ./cmd/karst. Ignores KARST_BOOTSTRAP: it needs its own SSL listener.
# Prints PASS/FAIL per check and "interop-tls: N passed, M failed".
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TOOL="$HERE/../kafka/tool.sh"
source "$HERE/../kafka/common.sh"
WORK="$(mktemp -d /tmp/interop-tls.XXXXXX)"
KARST_PID=""
trap '[ -n "$KARST_PID" ] && kill "$KARST_PID" 2> /dev/null; wait 2> /dev/null; [ "${INTEROP_KEEP_DATA:-0}" = 1 ] || rm -rf "$WORK"' EXIT
PASSED=0; FAILED=0
PW=interop-secret
TOPIC="interop-tls-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"

check() {
  local name="$1" fn="$2" start=$SECONDS
  if "$fn" > "$WORK/$name.log" 2>&1; then
    PASSED=$((PASSED + 1)); echo "PASS $name ($((SECONDS - start)) s)"
  else
    FAILED=$((FAILED + 1)); echo "FAIL $name ($((SECONDS - start)) s)"; sed 's/^/     /' "$WORK/$name.log" | tail -n 25; return 1
  fi
}
tool() { timeout 60 "$TOOL" "$@"; }
kt() { keytool -noprompt -storepass "$PW" -keypass "$PW" "$@"; }

# ca NAME: a CA key pair in NAME-ca.p12 and its certificate in NAME-ca.pem.
ca() {
  kt -genkeypair -alias ca -keyalg EC -groupname secp256r1 -dname "CN=$1-ca,O=Karst interop" \
    -ext bc:c -validity 2 -keystore "$WORK/$1-ca.p12" -storetype PKCS12 &&
  kt -exportcert -rfc -alias ca -keystore "$WORK/$1-ca.p12" -file "$WORK/$1-ca.pem"
}
# signed CA STORE DNAME [EXT]: a key pair in STORE (PKCS12) whose certificate CA signed.
signed() {
  local ca="$1" store="$2" dname="$3" ext="${4:-}"
  kt -genkeypair -alias key -keyalg EC -groupname secp256r1 -dname "$dname" -validity 2 \
    -keystore "$store" -storetype PKCS12 &&
  kt -certreq -alias key -keystore "$store" -file "$store.csr" &&
  kt -gencert -alias ca -keystore "$WORK/$ca-ca.p12" -infile "$store.csr" -outfile "$store.crt" -rfc -validity 2 \
    ${ext:+-ext "$ext"} &&
  kt -importcert -alias ca -file "$WORK/$ca-ca.pem" -keystore "$store" -storetype PKCS12 &&
  kt -importcert -alias key -file "$store.crt" -keystore "$store" -storetype PKCS12
}
# truststore CA FILE: a JKS trust store holding CA.
truststore() { kt -importcert -alias ca -file "$WORK/$1-ca.pem" -keystore "$2" -storetype JKS; }

make_stores() {
  ca first && ca second &&
  signed first "$WORK/broker.p12" "CN=broker" "san=ip:127.0.0.1,dns:localhost" &&
  signed second "$WORK/broker-rotated.p12" "CN=broker" "san=ip:127.0.0.1,dns:localhost" &&
  signed first "$WORK/client.p12" "CN=interop-client,OU=clients,O=Karst interop" &&
  truststore first "$WORK/trust-first.jks" && truststore second "$WORK/trust-second.jks"
}

client_config() { # FILE TRUSTSTORE [KEYSTORE]
  { echo "security.protocol=SSL"
    echo "ssl.truststore.type=JKS"; echo "ssl.truststore.location=$2"; echo "ssl.truststore.password=$PW"
    if [ -n "${3:-}" ]; then
      echo "ssl.keystore.type=PKCS12"; echo "ssl.keystore.location=$3"
      echo "ssl.keystore.password=$PW"; echo "ssl.key.password=$PW"
    fi
  } > "$1"
}

start_karst() {
  local bin="${KARST_BIN:-$WORK/karst}"
  if [ -z "${KARST_BIN:-}" ]; then (cd "$ROOT" && go build -o "$bin" ./cmd/karst) || return 1; fi
  PLAIN_PORT="$(free_port)"; SSL_PORT="$(free_port)"; NOAUTH_PORT="$(free_port)"; SASL_SSL_PORT="$(free_port)"
  SASL_PORT="$(free_port)"
  mkdir -p "$WORK/data"
  cat > "$WORK/server.properties" <<PROPS
listeners=PLAINTEXT://127.0.0.1:$PLAIN_PORT,SSL://127.0.0.1:$SSL_PORT,SSL_NOAUTH://127.0.0.1:$NOAUTH_PORT,SASL_SSL://127.0.0.1:$SASL_SSL_PORT,SASL_PLAINTEXT://127.0.0.1:$SASL_PORT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL,SSL_NOAUTH:SSL,SASL_SSL:SASL_SSL,SASL_PLAINTEXT:SASL_PLAINTEXT
listener.name.ssl_noauth.ssl.client.auth=none
listener.name.sasl_ssl.ssl.client.auth=none
sasl.enabled.mechanisms=SCRAM-SHA-512,SCRAM-SHA-256,PLAIN,OAUTHBEARER
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_paula="paula-secret";
listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_paula="paula-secret";
log.dirs=$WORK/data
ssl.keystore.type=PKCS12
ssl.keystore.location=$WORK/broker.p12
ssl.keystore.password=$PW
ssl.key.password=$PW
ssl.truststore.type=JKS
ssl.truststore.location=$WORK/trust-first.jks
ssl.truststore.password=$PW
ssl.client.auth=required
ssl.principal.mapping.rules=RULE:^CN=(.*?),OU=.*$/\$1/L,DEFAULT
PROPS
  "$bin" serve "$WORK/server.properties" > "$WORK/karst.log" 2>&1 < /dev/null &
  KARST_PID=$!
  local deadline=$((SECONDS + 60))
  until port_open 127.0.0.1 "$SSL_PORT"; do
    if ! kill -0 "$KARST_PID" 2> /dev/null || [ $SECONDS -ge $deadline ]; then cat "$WORK/karst.log"; return 1; fi
    sleep 0.2
  done
  client_config "$WORK/client.properties" "$WORK/trust-first.jks" "$WORK/client.p12"
  client_config "$WORK/nocert.properties" "$WORK/trust-first.jks"
  client_config "$WORK/rotated.properties" "$WORK/trust-second.jks" "$WORK/client.p12"
}

SSL() { echo "127.0.0.1:$SSL_PORT"; }

topics_over_ssl() {
  tool kafka-topics --bootstrap-server "$(SSL)" --command-config "$WORK/client.properties" \
    --create --topic "$TOPIC" --partitions 1 --replication-factor 1 &&
  tool kafka-topics --bootstrap-server "$(SSL)" --command-config "$WORK/client.properties" --list | grep -qx "$TOPIC"
}

console_round_trip() {
  printf 'one\ntwo\nthree\n' | tool kafka-console-producer --bootstrap-server "$(SSL)" \
    --command-config "$WORK/client.properties" --topic "$TOPIC" || return 1
  local got
  got="$(tool kafka-console-consumer --bootstrap-server "$(SSL)" --command-config "$WORK/client.properties" \
    --topic "$TOPIC" --partition 0 --offset earliest --max-messages 3 --timeout-ms 30000)" || return 1
  [ "$got" = "$(printf 'one\ntwo\nthree')" ] || { echo "consumed: $got"; return 1; }
}

no_client_cert_refused() {
  if timeout 60 "$TOOL" kafka-topics --bootstrap-server "$(SSL)" --command-config "$WORK/nocert.properties" \
    --list > "$WORK/nocert.out" 2>&1; then
    cat "$WORK/nocert.out"; echo "listed topics without a client certificate"; return 1
  fi
  cat "$WORK/nocert.out"
  grep -qiE "SSL handshake failed|SslAuthenticationException|bad_certificate|certificate_required" "$WORK/nocert.out"
}

topics_over_ssl_without_client_cert() {
  tool kafka-topics --bootstrap-server "127.0.0.1:$NOAUTH_PORT" --command-config "$WORK/nocert.properties" --list | grep -qx "$TOPIC"
}

# kafkajs MODE CONFIG_JSON: one run of kafkajs.js.
kafkajs() { timeout 120 node "$HERE/kafkajs.js" "$@"; }
kafkajs_ssl_server_verified() {
  kafkajs round-trip "{\"broker\":\"127.0.0.1:$NOAUTH_PORT\",\"topic\":\"$TOPIC-kjs-ssl\",\"ca\":\"$WORK/first-ca.pem\"}"
}
kafkajs_untrusted_server_refused() {
  kafkajs refused "{\"broker\":\"127.0.0.1:$NOAUTH_PORT\",\"ca\":\"$WORK/second-ca.pem\",\"expect\":\"self-signed certificate in certificate chain|unable to verify the first certificate|unable to get local issuer certificate\"}"
}
kafkajs_mtls() {
  kafkajs round-trip "{\"broker\":\"$(SSL)\",\"topic\":\"$TOPIC-kjs-mtls\",\"ca\":\"$WORK/first-ca.pem\",\"pfx\":\"$WORK/client.p12\",\"passphrase\":\"$PW\"}"
}
kafkajs_mtls_without_cert_refused() {
  kafkajs refused "{\"broker\":\"$(SSL)\",\"ca\":\"$WORK/first-ca.pem\",\"expect\":\"alert certificate required|alert bad certificate\"}"
}
add_scram_users() {
  tool kafka-configs --bootstrap-server "127.0.0.1:$PLAIN_PORT" --alter --entity-type users --entity-name sam \
    --add-config 'SCRAM-SHA-512=[iterations=4096,password=sam-secret]' &&
  # One mechanism a request: Kafka refuses two changes to one user's credentials in one request.
  tool kafka-configs --bootstrap-server "127.0.0.1:$PLAIN_PORT" --alter --entity-type users --entity-name sam \
    --add-config 'SCRAM-SHA-256=[iterations=8192,password=sam-256]'
}
# kafkajs_sasl PROTOCOL MECHANISM: a round trip over SASL_SSL (trusting the first CA) or
# SASL_PLAINTEXT, as paula (PLAIN), sam (SCRAM) or olivia (OAUTHBEARER).
kafkajs_sasl() {
  local port="$SASL_PORT" ca="" sasl
  [ "$1" = SASL_SSL ] && port="$SASL_SSL_PORT" ca="\"ca\":\"$WORK/first-ca.pem\","
  case "$2" in
    plain) sasl='{"mechanism":"plain","username":"paula","password":"paula-secret"}' ;;
    scram-sha-512) sasl='{"mechanism":"scram-sha-512","username":"sam","password":"sam-secret"}' ;;
    scram-sha-256) sasl='{"mechanism":"scram-sha-256","username":"sam","password":"sam-256"}' ;;
    oauthbearer) sasl='{"mechanism":"oauthbearer","sub":"olivia","expiresIn":3600}' ;;
  esac
  kafkajs round-trip "{\"broker\":\"127.0.0.1:$port\",\"topic\":\"$TOPIC-kjs-$(tr A-Z_ a-z- <<< "$1")-$2\",$ca\"sasl\":$sasl}"
}
# kafkajs takes the broker's error challenge ({"status":"invalid_token"}) for success and sends
# Metadata; the broker then ends the exchange as Kafka does (IllegalSaslState, connection closed),
# and kafkajs reports no broker left. The broker's log says why.
kafkajs_expired_token_refused() {
  kafkajs refused "{\"broker\":\"127.0.0.1:$SASL_PORT\",\"sasl\":{\"mechanism\":\"oauthbearer\",\"sub\":\"olivia\",\"expiresIn\":-600},\"expect\":\"No brokers in the broker pool\"}" &&
  grep 'SASL authentication failed; closing the connection' "$WORK/karst.log" | grep 'mechanism=OAUTHBEARER' |
    grep -q 'Unexpected Kafka request of type Metadata during SASL authentication'
}
kafkajs_sasl_ssl_wrong_password_refused() {
  kafkajs refused "{\"broker\":\"127.0.0.1:$SASL_SSL_PORT\",\"ca\":\"$WORK/first-ca.pem\",\"sasl\":{\"mechanism\":\"scram-sha-512\",\"username\":\"sam\",\"password\":\"not-sams\"},\"expect\":\"SASL SCRAM SHA512 authentication failed.*SASL_AUTHENTICATION_FAILED|Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512\"}"
}

rotate_keystore() {
  tool kafka-configs --bootstrap-server "127.0.0.1:$PLAIN_PORT" --entity-type brokers --entity-name 1 --alter \
    --add-config "listener.name.ssl.ssl.keystore.location=$WORK/broker-rotated.p12" || return 1
  local deadline=$((SECONDS + 60))
  until tool kafka-topics --bootstrap-server "$(SSL)" --command-config "$WORK/rotated.properties" --list | grep -qx "$TOPIC"; do
    [ $SECONDS -lt $deadline ] || { echo "the rotated key store is not served"; return 1; }
    sleep 1
  done
}

if check make_stores make_stores && check start_karst start_karst; then
  check topics_over_ssl topics_over_ssl
  check console_round_trip console_round_trip
  check no_client_cert_refused no_client_cert_refused
  check topics_over_ssl_without_client_cert topics_over_ssl_without_client_cert
  check kafkajs_ssl_server_verified kafkajs_ssl_server_verified
  check kafkajs_untrusted_server_refused kafkajs_untrusted_server_refused
  check kafkajs_mtls kafkajs_mtls
  check kafkajs_mtls_without_cert_refused kafkajs_mtls_without_cert_refused
  check add_scram_users add_scram_users
  for protocol in SASL_SSL SASL_PLAINTEXT; do
    for mechanism in plain scram-sha-256 scram-sha-512 oauthbearer; do
      eval "kafkajs_${protocol}_${mechanism//-/_}() { kafkajs_sasl $protocol $mechanism; }"
      check "kafkajs_${protocol,,}_${mechanism//-/_}" "kafkajs_${protocol}_${mechanism//-/_}"
    done
  done
  check kafkajs_expired_token_refused kafkajs_expired_token_refused
  check kafkajs_sasl_ssl_wrong_password_refused kafkajs_sasl_ssl_wrong_password_refused
  check rotate_keystore rotate_keystore
fi
echo "interop-tls: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
