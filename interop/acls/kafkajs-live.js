'use strict'
// node kafkajs-live.js SASL_BOOTSTRAP ADMIN_BOOTSTRAP: kafkajs 2.2.4 (../node's install) gaining and
// losing access while it runs, driven by run.sh. The producer and the consumer log in as the
// SASL/PLAIN user alice; the admin client, on the PLAINTEXT listener, is the super user
// User:ANONYMOUS and creates and deletes alice's ACLs between the steps, waiting until DescribeAcls
// shows the change. The producer is one instance throughout. kafkajs does not restart a consumer
// that crashed on a non-retriable error (an authorization failure is one), so the refused consumer
// is started again (run) after the grant, the same instance; the consumer that loses its ACLs is
// the one that was running. Prints "PASS name: detail" or "FAIL name: detail" per check, exits 1
// on a FAIL.
const path = require('node:path')
const { createRequire } = require('node:module')
const { Kafka, logLevel, AclResourceTypes, AclOperationTypes, AclPermissionTypes, ResourcePatternTypes } =
  createRequire(path.join(__dirname, '../node/package.json'))('kafkajs')

const [saslBroker, adminBroker] = process.argv.slice(2)
const STEP_MS = 60000 // a deadline for each awaited condition
const TOPIC = 'kafkajs-live'
const GROUP = 'kafkajs-live-g'
let failed = 0

function check(name, ok, detail) {
  console.log(`${ok ? 'PASS' : 'FAIL'} ${name}: ${detail}`)
  if (!ok) failed++
}

function client(broker, sasl) {
  return new Kafka({
    clientId: 'karst-interop-acls-kafkajs', brokers: [broker], sasl, logLevel: logLevel.NOTHING,
    connectionTimeout: 10000, requestTimeout: 30000,
    retry: { retries: 2, initialRetryTime: 200, maxRetryTime: 1000 },
  })
}

const aliceFilter = {
  resourceType: AclResourceTypes.ANY, resourcePatternType: ResourcePatternTypes.ANY, principal: 'User:alice',
  operation: AclOperationTypes.ANY, permissionType: AclPermissionTypes.ANY,
}
const allow = (resourceType, resourceName, operation) => ({
  resourceType, resourceName, resourcePatternType: ResourcePatternTypes.LITERAL, principal: 'User:alice', host: '*',
  operation, permissionType: AclPermissionTypes.ALLOW,
})

// until polls cond (an async predicate) until it holds or the step's deadline passes.
async function until(cond) {
  const deadline = Date.now() + STEP_MS
  while (Date.now() < deadline) {
    if (await cond()) return true
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  return false
}

const describe = err => (err ? `${err.name}: ${err.type || ''} ${err.message}` : 'written')
const authorizationError = err => err && /AUTHORIZATION_FAILED/.test(`${err.type} ${err.cause && err.cause.type}`)

async function main() {
  const admin = client(adminBroker).admin()
  await admin.connect()
  const aliceAcls = async () => (await admin.describeAcls(aliceFilter)).resources.reduce((n, r) => n + r.acls.length, 0)
  const revokeAll = async () => {
    await admin.deleteAcls({ filters: [aliceFilter] })
    if (!(await until(async () => (await aliceAcls()) === 0))) throw new Error("alice's ACLs are still listed")
  }
  await revokeAll() // the suite's earlier checks leave ACLs of alice's
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic: TOPIC, numPartitions: 1 }] })
  const seed = client(adminBroker).producer()
  await seed.connect()
  await seed.send({ topic: TOPIC, acks: -1, messages: [{ value: 'seed' }] })
  await seed.disconnect()

  const alice = client(saslBroker, { mechanism: 'plain', username: 'alice', password: 'alice-secret' })
  const producer = alice.producer({ allowAutoTopicCreation: false })
  await producer.connect()
  const send = () => producer.send({ topic: TOPIC, acks: -1, messages: [{ value: 'v' }] }).then(() => null, err => err)
  const sendUntil = async want => {
    let last
    await until(async () => want((last = await send())))
    return last
  }
  const consumer = alice.consumer({ groupId: GROUP, allowAutoTopicCreation: false, retry: { retries: 2 } })
  const crashes = []
  consumer.on(consumer.events.CRASH, ({ payload }) => crashes.push(payload))
  const read = []
  const start = () => consumer.run({ eachMessage: async ({ message }) => { read.push(message.value.toString()) } }).catch(err => crashes.push({ error: err }))
  await consumer.connect()
  const subscribe = () => consumer.subscribe({ topic: TOPIC, fromBeginning: true }).then(() => null, e => e)

  // 1. No ACL: both are refused. kafkajs asks for the topic's metadata when the consumer subscribes,
  // so that is where it is refused; one that subscribed is refused when it joins the group.
  let err = await send()
  check('kafkajs_producer_refused', authorizationError(err), describe(err))
  const subscribeErr = await subscribe()
  let crash = null
  if (subscribeErr === null) {
    await start()
    await until(async () => crashes.length > 0)
    crash = crashes.shift()
  }
  const refusal = subscribeErr || (crash && crash.error)
  check('kafkajs_consumer_refused', authorizationError(refusal),
    refusal ? `${describe(refusal)}${subscribeErr ? ' (subscribe)' : ` (run; restart ${crash.restart})`}` : `no crash within ${STEP_MS} ms`)

  // 2. Granted while running.
  const acls = [allow(AclResourceTypes.TOPIC, TOPIC, AclOperationTypes.WRITE), allow(AclResourceTypes.TOPIC, TOPIC, AclOperationTypes.READ),
    allow(AclResourceTypes.GROUP, GROUP, AclOperationTypes.READ)]
  await admin.createAcls({ acl: acls })
  if (!(await until(async () => (await aliceAcls()) === acls.length))) throw new Error('the ACLs were not listed')
  err = await sendUntil(e => e === null)
  check('kafkajs_producer_granted', err === null, describe(err))
  if (subscribeErr) {
    const again = await subscribe()
    if (again) throw again
    await start()
  } else if (crash && !crash.restart) {
    await consumer.connect()
    await start()
  }
  const gotRecords = await until(async () => read.length > 0)
  check('kafkajs_consumer_granted', gotRecords, gotRecords ? `read ${read.length} records` : `no record within ${STEP_MS} ms`)

  // 3. Lost while running: only a crash from now on counts.
  crashes.length = 0
  await revokeAll()
  err = await sendUntil(e => authorizationError(e))
  check('kafkajs_producer_lost', authorizationError(err), describe(err))
  await until(async () => crashes.length > 0)
  crash = crashes.shift()
  check('kafkajs_consumer_lost', crash && authorizationError(crash.error),
    crash ? `${describe(crash.error)} (restart ${crash.restart})` : `no crash within ${STEP_MS} ms`)

  await Promise.all([producer.disconnect(), consumer.disconnect().catch(() => {}), admin.disconnect()])
}

main().then(() => process.exit(failed === 0 ? 0 : 1), err => { console.error(err.stack || String(err)); process.exit(1) })
