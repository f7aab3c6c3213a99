'use strict'
// kafkajs generations: the checks one kafkajs version runs against a broker.
//
//   node check.js check BOOTSTRAP VERSION PACKAGE RUN_ID   ends "generation VERSION: N passed, M failed"
//   node check.js setup BOOTSTRAP RUN_ID PACKAGE VERSION...     each version's produce and group topics
//   node check.js teardown BOOTSTRAP RUN_ID PACKAGE VERSION...
//
// PACKAGE is the alias the version is installed under (package.json: kafkajs1 is kafkajs@1.16.0,
// kafkajs2 is kafkajs@2.2.4), so both live in one node_modules. One source serves both: where
// their APIs differ (admin.fetchOffsets takes topic in 1.x and answers partitions, topics in 2.x)
// the version's own call is used. kafkajs commits no offset metadata and has no
// auto.offset.reset=none: the resuming member starts at the latest offset without a commit, so
// without the commits it reads nothing. run.sh makes and removes the topics with the newest
// version, so that a version whose admin calls fail still shows how its producer and consumer fare.

const PARTITIONS = 2
const PER_PARTITION = 10
const CALL_TIMEOUT_MS = 10000
const POLL_DEADLINE_MS = 30000
const RETENTION_MS = '3600000'

const produceTopic = (runId, version) => `kafkajs-produce-${version}-${runId}`
const groupTopic = (runId, version) => `kafkajs-group-${version}-${runId}`
const keyValueAt = (partition, offset) => {
  const i = offset * PARTITIONS + partition
  return `k${i}=v${i}`
}

function client(kafkajs, bootstrap) {
  return new kafkajs.Kafka({
    clientId: 'karst-interop-kafkajs-gen',
    brokers: [bootstrap],
    logLevel: kafkajs.logLevel.NOTHING,
    connectionTimeout: CALL_TIMEOUT_MS,
    requestTimeout: CALL_TIMEOUT_MS,
    retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 1000 },
  })
}

function require_(condition, message) {
  if (!condition) throw new Error(message)
}

// produce sends record i to partition i % PARTITIONS with an idempotent acks=all producer, one
// record a send, and checks each acknowledged partition and offset.
async function produce(kafka, topic) {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false })
  await producer.connect()
  try {
    for (let i = 0; i < PER_PARTITION * PARTITIONS; i++) {
      const partition = i % PARTITIONS
      const [ack] = await producer.send({ topic, acks: -1, timeout: CALL_TIMEOUT_MS, messages: [{ key: `k${i}`, value: `v${i}`, partition }] })
      const offset = Math.floor(i / PARTITIONS)
      require_(ack.partition === partition && ack.errorCode === 0 && ack.baseOffset === String(offset),
        `record ${i} acknowledged ${JSON.stringify(ack)}, expected partition ${partition} offset ${offset}`)
    }
  } finally {
    await producer.disconnect()
  }
}

// GroupRoundTrip: a first member reads every test record and commits a different offset per
// partition; a fresh member of the group must read exactly from those offsets.
class GroupRoundTrip {
  constructor(kafka, topic, groupId) {
    this.kafka = kafka
    this.topic = topic
    this.groupId = groupId
    this.commits = new Map([...Array(PARTITIONS).keys()].map(p => [p, 4 + 2 * p]))
  }

  consumeAndCommit() {
    return this.asMember(true, recordsFrom(() => 0), consumer =>
      consumer.commitOffsets([...this.commits].map(([partition, offset]) => ({ topic: this.topic, partition, offset: String(offset) }))))
  }

  resumeFromCommits() {
    return this.asMember(false, recordsFrom(p => this.commits.get(p)), async () => {})
  }

  // asMember joins the group subscribed to the topic, reads until every expected record arrived
  // (failing on any other record or a key and value that are not the test record's), runs
  // afterRead and leaves the group.
  async asMember(fromBeginning, expected, afterRead) {
    const consumer = this.kafka.consumer({ groupId: this.groupId, sessionTimeout: 10000, heartbeatInterval: 1000, maxWaitTimeInMs: 200, allowAutoTopicCreation: false })
    await consumer.connect()
    try {
      await consumer.subscribe({ topic: this.topic, fromBeginning })
      const read = new Set()
      let failure = null
      let done
      const finished = new Promise(resolve => { done = resolve })
      const deadline = setTimeout(() => done(), POLL_DEADLINE_MS)
      await consumer.run({
        autoCommit: false,
        eachMessage: async ({ partition, message }) => {
          const at = `${partition}/${message.offset}`
          const kv = `${message.key}=${message.value}`
          if (!expected.has(at)) failure = failure || `unexpected record at ${at}`
          else if (kv !== keyValueAt(partition, Number(message.offset))) failure = failure || `record at ${at} is ${kv}`
          read.add(at)
          if (failure || read.size === expected.size) done()
        },
      })
      await finished
      clearTimeout(deadline)
      require_(!failure, failure)
      require_(read.size === expected.size, `read ${read.size} of ${expected.size} records in ${POLL_DEADLINE_MS / 1000} s`)
      await afterRead(consumer)
    } finally {
      await consumer.disconnect()
    }
  }
}

function recordsFrom(firstOffset) {
  const records = new Set()
  for (let p = 0; p < PARTITIONS; p++) for (let o = firstOffset(p); o < PER_PARTITION; o++) records.add(`${p}/${o}`)
  return records
}

// TopicAdmin: cluster, the group and its offsets, a topic's lifecycle and configs.
class TopicAdmin {
  constructor(kafkajs, admin, bootstrap, topic, major) {
    this.kafkajs = kafkajs
    this.admin = admin
    this.bootstrap = bootstrap
    this.topic = topic
    this.major = major
  }

  async describeCluster() {
    const cluster = await this.admin.describeCluster()
    const nodes = cluster.brokers.map(b => `${b.host}:${b.port}`)
    require_(nodes.includes(this.bootstrap), `no broker at ${this.bootstrap}: ${nodes}`)
    require_(cluster.clusterId, `cluster id ${cluster.clusterId}`)
    require_(cluster.brokers.some(b => b.nodeId === cluster.controller), `controller ${cluster.controller} not among the brokers`)
  }

  async listConsumerGroup(groupId) {
    const { groups } = await this.admin.listGroups()
    const listed = groups.filter(g => g.groupId === groupId)
    require_(listed.length === 1, `${groupId} not listed among ${groups.length} groups`)
    require_(listed[0].protocolType === 'consumer', `${groupId} protocol type ${listed[0].protocolType}`)
  }

  async describeConsumerGroup(groupId) {
    const { groups } = await this.admin.describeGroups([groupId])
    require_(groups.length === 1 && groups[0].groupId === groupId, `described ${JSON.stringify(groups)}`)
    const g = groups[0]
    // Both members have left, so the group is Empty.
    require_(g.errorCode === 0 && g.state === 'Empty' && g.members.length === 0 && g.protocolType === 'consumer',
      `${groupId}: error ${g.errorCode}, state ${g.state}, ${g.members.length} members, protocol type ${g.protocolType}`)
  }

  async listGroupOffsets(roundTrip) {
    const partitions = this.major < 2
      ? await this.admin.fetchOffsets({ groupId: roundTrip.groupId, topic: roundTrip.topic })
      : (await this.admin.fetchOffsets({ groupId: roundTrip.groupId, topics: [roundTrip.topic] }))[0].partitions
    const listed = new Map(partitions.map(p => [p.partition, Number(p.offset)]))
    const committed = JSON.stringify([...roundTrip.commits].sort())
    require_(JSON.stringify([...listed].sort()) === committed, `listed ${JSON.stringify([...listed])}, committed ${committed}`)
  }

  async createTopic() {
    const created = await this.admin.createTopics({
      topics: [{ topic: this.topic, numPartitions: PARTITIONS, replicationFactor: 1, configEntries: [{ name: 'retention.ms', value: RETENTION_MS }] }],
      waitForLeaders: true,
      timeout: CALL_TIMEOUT_MS,
    })
    require_(created === true, `createTopics answered ${created}`)
    await this.waitListed(true)
  }

  async describeTopic() {
    const { topics } = await this.admin.fetchTopicMetadata({ topics: [this.topic] })
    require_(topics.length === 1 && topics[0].name === this.topic, `described ${JSON.stringify(topics)}`)
    const parts = topics[0].partitions
    require_(parts.length === PARTITIONS, `${parts.length} partitions`)
    for (const p of parts) {
      require_(p.partitionErrorCode === 0 && p.leader >= 0 && p.replicas.length === 1 && p.isr.length === 1, `partition ${JSON.stringify(p)}`)
    }
  }

  async describeConfigs() {
    const { resources } = await this.admin.describeConfigs({
      resources: [{ type: this.kafkajs.ConfigResourceTypes.TOPIC, name: this.topic }],
      includeSynonyms: false,
    })
    require_(resources.length === 1 && resources[0].errorCode === 0, `resources ${JSON.stringify(resources)}`)
    const byName = new Map(resources[0].configEntries.map(e => [e.configName, e]))
    const retention = byName.get('retention.ms')
    const topicConfig = this.kafkajs.ConfigSource.TOPIC_CONFIG
    require_(retention && retention.configValue === RETENTION_MS && retention.configSource === topicConfig, `retention.ms ${JSON.stringify(retention)}`)
    const cleanup = byName.get('cleanup.policy')
    require_(cleanup && cleanup.configValue === 'delete' && cleanup.configSource !== topicConfig, `cleanup.policy ${JSON.stringify(cleanup)}`)
  }

  async deleteTopic() {
    await this.admin.deleteTopics({ topics: [this.topic], timeout: CALL_TIMEOUT_MS })
    await this.waitListed(false)
  }

  // A created or deleted topic reaches the broker's metadata after the controller answered.
  async waitListed(listed) {
    const deadline = Date.now() + CALL_TIMEOUT_MS
    while ((await this.admin.listTopics()).includes(this.topic) !== listed) {
      require_(Date.now() < deadline, `${this.topic} listed: ${!listed} after ${CALL_TIMEOUT_MS / 1000} s`)
      await new Promise(resolve => setTimeout(resolve, 100))
    }
  }
}

// Checks prints "PASS name (ms)" or "FAIL name (ms): reason" per check, which run.sh reads.
class Checks {
  constructor() { this.passed = 0; this.failed = 0 }

  async run(name, body) {
    const start = Date.now()
    try {
      await body()
    } catch (e) {
      this.failed++
      console.log(`FAIL ${name} (${Date.now() - start} ms): ${String(e && e.stack ? `${e.name}: ${e.message}` : e).replace(/\n/g, ' ')}`)
      return false
    }
    this.passed++
    console.log(`PASS ${name} (${Date.now() - start} ms)`)
    return true
  }

  notRun(name, because) {
    this.failed++
    console.log(`FAIL ${name} (0 ms): not run, ${because}`)
  }
}

async function checkVersion(bootstrap, version, pkg, runId) {
  const kafkajs = require(pkg)
  const checks = new Checks()
  await checks.run('client_version', async () => {
    const loaded = require(`${pkg}/package.json`).version
    require_(loaded === version, `${pkg} is kafkajs ${loaded}`)
  })
  const kafka = client(kafkajs, bootstrap)
  await checks.run('produce', () => produce(kafka, produceTopic(runId, version)))
  const groupId = `kafkajs-group-${version}-${runId}`
  const roundTrip = new GroupRoundTrip(kafka, groupTopic(runId, version), groupId)
  const consumed = await checks.run('group_consume_commit', () => roundTrip.consumeAndCommit())
  if (consumed) await checks.run('group_resume_from_commits', () => roundTrip.resumeFromCommits())
  else checks.notRun('group_resume_from_commits', 'no commits')

  const admin = kafka.admin()
  if (await checks.run('admin_connect', () => admin.connect())) {
    const a = new TopicAdmin(kafkajs, admin, bootstrap, `kafkajs-admin-${version}-${runId}`, Number(version.split('.')[0]))
    await checks.run('admin_describe_cluster', () => a.describeCluster())
    const groupChecks = [['admin_list_consumer_groups', () => a.listConsumerGroup(groupId)],
      ['admin_describe_consumer_group', () => a.describeConsumerGroup(groupId)],
      ['admin_list_group_offsets', () => a.listGroupOffsets(roundTrip)]]
    for (const [name, body] of groupChecks) {
      if (consumed) await checks.run(name, body)
      else checks.notRun(name, 'no group')
    }
    const topicChecks = [['admin_describe_topic', () => a.describeTopic()], ['admin_describe_configs', () => a.describeConfigs()],
      ['admin_delete_topic', () => a.deleteTopic()]]
    const created = await checks.run('admin_create_topic', () => a.createTopic())
    for (const [name, body] of topicChecks) {
      if (created) await checks.run(name, body)
      else checks.notRun(name, 'no topic')
    }
    await admin.disconnect()
  }
  console.log(`generation ${version}: ${checks.passed} passed, ${checks.failed} failed`)
  return checks.failed === 0 ? 0 : 1
}

// dataTopics creates (and fills the group ones) or deletes every version's topics.
async function dataTopics(create, bootstrap, runId, pkg, versions) {
  const kafka = client(require(pkg), bootstrap)
  const admin = kafka.admin()
  await admin.connect()
  try {
    const names = versions.flatMap(v => [produceTopic(runId, v), groupTopic(runId, v)])
    if (!create) {
      await admin.deleteTopics({ topics: names, timeout: CALL_TIMEOUT_MS })
      return
    }
    const created = await admin.createTopics({
      topics: names.map(topic => ({ topic, numPartitions: PARTITIONS, replicationFactor: 1 })),
      waitForLeaders: true,
      timeout: CALL_TIMEOUT_MS,
    })
    require_(created === true, `createTopics answered ${created}`)
  } finally {
    await admin.disconnect()
  }
  for (const v of versions) await produce(kafka, groupTopic(runId, v))
}

async function main(argv) {
  if (argv.length >= 5 && argv[0] === 'check') return checkVersion(argv[1], argv[2], argv[3], argv[4])
  if (argv.length >= 5 && (argv[0] === 'setup' || argv[0] === 'teardown')) {
    await dataTopics(argv[0] === 'setup', argv[1], argv[2], argv[3], argv.slice(4))
    return 0
  }
  console.error('usage: check BOOTSTRAP VERSION PACKAGE RUN_ID | setup|teardown BOOTSTRAP RUN_ID PACKAGE VERSION...')
  return 2
}

main(process.argv.slice(2)).then(code => process.exit(code), e => {
  console.log(`error: ${e && e.stack ? e.stack : e}`)
  process.exit(1)
})
