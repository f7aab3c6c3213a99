'use strict'
// kafkajs 2.2.4 (../node's install) over SSL, SASL_SSL and SASL_PLAINTEXT, driven by run.sh:
//   node kafkajs.js round-trip CONFIG   creates the topic if needed, produces 3 records with acks=-1
//                                       and reads them back with a consumer group; exits 0 when the
//                                       consumed values are the produced ones
//   node kafkajs.js refused CONFIG      connecting must fail; prints the error and exits 0 when it
//                                       matches CONFIG.expect (a regular expression)
// CONFIG is JSON: {broker, topic, ca, pfx, passphrase, sasl: {mechanism, username, password}, expect}.
// ca is a PEM file the client trusts (server verification is always on); without ca the client
// does not use TLS (SASL_PLAINTEXT). pfx is a PKCS12 key store holding the client's certificate
// (mTLS). sasl {mechanism: "oauthbearer", sub, expiresIn} logs in with an unsecured JWT (alg none,
// as Kafka's default OAUTHBEARER validator accepts) for principal sub, expiring expiresIn seconds
// from now (negative: already expired).
const fs = require('node:fs')
const path = require('node:path')
const { createRequire } = require('node:module')
const { Kafka, logLevel } = createRequire(path.join(__dirname, '../node/package.json'))('kafkajs')

const [mode, raw] = process.argv.slice(2)
const cfg = JSON.parse(raw)

function unsecuredJWT(sub, expiresIn) {
  const part = v => Buffer.from(JSON.stringify(v)).toString('base64url')
  const now = Math.floor(Date.now() / 1000)
  return `${part({ alg: 'none' })}.${part({ sub, iat: now - 60, exp: now + expiresIn })}.`
}

function sasl() {
  if (!cfg.sasl || cfg.sasl.mechanism !== 'oauthbearer') return cfg.sasl
  const value = unsecuredJWT(cfg.sasl.sub, cfg.sasl.expiresIn)
  return { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value }) }
}

function kafka() {
  const ssl = cfg.ca ? { rejectUnauthorized: true, ca: [fs.readFileSync(cfg.ca)] } : false
  if (cfg.pfx) {
    ssl.pfx = fs.readFileSync(cfg.pfx)
    ssl.passphrase = cfg.passphrase
  }
  return new Kafka({
    clientId: 'karst-interop-tls-kafkajs',
    brokers: [cfg.broker],
    ssl,
    sasl: sasl(),
    logLevel: logLevel.NOTHING,
    connectionTimeout: 10000,
    authenticationTimeout: 10000,
    requestTimeout: 30000,
    retry: { retries: mode === 'refused' ? 0 : 5, initialRetryTime: 200, maxRetryTime: 2000 },
  })
}

async function roundTrip() {
  const k = kafka()
  const admin = k.admin()
  await admin.connect()
  try {
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic: cfg.topic, numPartitions: 1 }] })
  } finally {
    await admin.disconnect()
  }
  const tag = `${cfg.topic}-${Date.now()}`
  const values = ['one', 'two', 'three'].map(v => `${tag}-${v}`)
  const producer = k.producer({ allowAutoTopicCreation: false })
  await producer.connect()
  try {
    await producer.send({ topic: cfg.topic, acks: -1, messages: values.map(value => ({ value })) })
  } finally {
    await producer.disconnect()
  }
  const consumer = k.consumer({ groupId: `${tag}-group`, allowAutoTopicCreation: false })
  const got = []
  await consumer.connect()
  try {
    await consumer.subscribe({ topic: cfg.topic, fromBeginning: true })
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`consumed ${JSON.stringify(got)} within 60 s`)), 60000)
      consumer.run({
        eachMessage: async ({ message }) => {
          const v = message.value.toString()
          if (v.startsWith(tag)) got.push(v)
          if (got.length >= values.length) { clearTimeout(timer); resolve() }
        },
      }).catch(reject)
    })
  } finally {
    await consumer.disconnect()
  }
  if (JSON.stringify(got) !== JSON.stringify(values)) throw new Error(`consumed ${JSON.stringify(got)}, produced ${JSON.stringify(values)}`)
  console.log(`produced and consumed ${values.length} records on ${cfg.topic} at ${cfg.broker}`)
}

async function refused() {
  const admin = kafka().admin()
  try {
    await admin.connect()
    await admin.listTopics()
  } catch (err) {
    const text = `${err.name}: ${err.message}${err.cause ? ` (cause ${err.cause.name}: ${err.cause.message})` : ''}${err.originalError ? ` (original ${err.originalError.message})` : ''}`
    console.log(text)
    if (!new RegExp(cfg.expect).test(text)) throw new Error(`the error does not match /${cfg.expect}/`)
    return
  } finally {
    await admin.disconnect().catch(() => {})
  }
  throw new Error('connected and listed topics')
}

const run = { 'round-trip': roundTrip, refused }[mode]
if (!run) { console.error(`unknown mode ${mode}`); process.exit(2) }
run().then(() => process.exit(0), err => { console.error(err.stack || String(err)); process.exit(1) })
