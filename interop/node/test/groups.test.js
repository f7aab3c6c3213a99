'use strict'
// kafkajs consumer group against KARST_BOOTSTRAP (INTEROP_GROUPS=0 skips it): a consumer group
// run reads every record of a 3-partition topic and commits; after more records are produced a
// second run of the same group resumes exactly after the committed offsets.
const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { Kafka, logLevel } = require('kafkajs')
const sc = require('../scenario')

const PER_PARTITION = 5
const DEADLINE_MS = 60000
const skip = process.env.INTEROP_GROUPS === '0' ? 'INTEROP_GROUPS=0' : false

function client() {
  return new Kafka({
    clientId: 'karst-interop-node-group',
    brokers: [sc.bootstrap()],
    logLevel: logLevel.ERROR,
    connectionTimeout: 10000,
    requestTimeout: 30000,
    retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 2000 },
  })
}

async function produceRound(producer, topic, round) {
  const want = new Set()
  const messages = []
  for (let p = 0; p < sc.PARTITIONS; p++) {
    for (let i = 0; i < PER_PARTITION; i++) {
      const value = `r${round}-p${p}-${i}`
      messages.push({ partition: p, value })
      want.add(`${p}/${value}`)
    }
  }
  await producer.send({ topic, acks: -1, timeout: 30000, messages })
  return want
}

// One consumer-group run: reads until every wanted record arrived (anything else fails), commits
// the consumed offsets and disconnects (LeaveGroup).
async function consumeRound(kafka, topic, groupId, want) {
  const consumer = kafka.consumer({ groupId, sessionTimeout: 10000, heartbeatInterval: 1000, allowAutoTopicCreation: false })
  const got = new Set()
  const unexpected = []
  let done
  const finished = new Promise(resolve => { done = resolve })
  await consumer.connect()
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true })
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        const item = `${partition}/${message.value.toString()}`
        if (!want.has(item)) unexpected.push(item)
        got.add(item)
        await consumer.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }])
        if (got.size >= want.size) done()
      },
    })
    const timer = new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out: ${got.size}/${want.size} records`)), DEADLINE_MS).unref())
    await Promise.race([finished, timer])
    assert.deepEqual(unexpected, [])
  } finally {
    await consumer.disconnect()
  }
}

describe('kafkajs consumer group', { skip }, () => {
  const kafka = client()
  const admin = kafka.admin()
  const producer = kafka.producer({ allowAutoTopicCreation: false })
  const topic = sc.topicName('interop-kafkajs-group')
  const groupId = sc.topicName('interop-kafkajs-group')

  before(async () => {
    await admin.connect()
    await producer.connect()
    await admin.createTopics({ waitForLeaders: true, timeout: 30000, topics: [{ topic, numPartitions: sc.PARTITIONS, replicationFactor: 1 }] })
  })
  after(async () => {
    await producer.disconnect()
    await admin.disconnect()
  })

  async function committed() {
    const res = await admin.fetchOffsets({ groupId, topics: [topic] })
    return Object.fromEntries(res[0].partitions.map(p => [p.partition, Number(p.offset)]))
  }
  const all = n => Object.fromEntries([...Array(sc.PARTITIONS).keys()].map(p => [p, n]))

  it('consumes everything and commits', async () => {
    await consumeRound(kafka, topic, groupId, await produceRound(producer, topic, 1))
    assert.deepEqual(await committed(), all(PER_PARTITION))
  })

  it('a second run resumes after the committed offsets', async () => {
    await consumeRound(kafka, topic, groupId, await produceRound(producer, topic, 2))
    assert.deepEqual(await committed(), all(2 * PER_PARTITION))
  })

  it('admin lists and describes the group', async () => {
    const { groups } = await admin.listGroups()
    assert.ok(groups.some(g => g.groupId === groupId), `listGroups lacks ${groupId}`)
    const d = await admin.describeGroups([groupId])
    assert.equal(d.groups[0].groupId, groupId)
    assert.equal(d.groups[0].state, 'Empty')
  })
})
