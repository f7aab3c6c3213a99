'use strict'
// kafkajs against KARST_BOOTSTRAP: admin creates a topic, the producer sends the scenario records
// with every compression type and a 1 MiB record, and they are read back without a consumer group
// (kafkajs' own Fetch request on the partition leader) and compared byte for byte.
const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { Kafka, logLevel } = require('kafkajs')
const { CompressionTypes } = require('../codecs')
const sc = require('../scenario')

const COMPRESSION = {
  none: CompressionTypes.None, gzip: CompressionTypes.GZIP, snappy: CompressionTypes.Snappy,
  lz4: CompressionTypes.LZ4, zstd: CompressionTypes.ZSTD,
}

function client() {
  return new Kafka({
    clientId: 'karst-interop-node',
    brokers: [sc.bootstrap()],
    logLevel: logLevel.ERROR,
    connectionTimeout: 10000,
    requestTimeout: 30000,
    retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 2000 },
  })
}

// A kafkajs Cluster (metadata + connections) outside any consumer group; kafkajs keeps its
// factory under a private symbol.
function cluster(kafka) {
  const sym = Object.getOwnPropertySymbols(kafka).find(s => s.description === 'private:Kafka:createCluster')
  return kafka[sym]({ allowAutoTopicCreation: false })
}

async function produce(kafka, topic, compression, records) {
  const producer = kafka.producer({ allowAutoTopicCreation: false })
  await producer.connect()
  try {
    const meta = await producer.send({
      topic,
      acks: -1,
      timeout: 30000,
      compression: COMPRESSION[compression],
      messages: records.map(r => ({
        partition: r.partition,
        key: r.key,
        value: r.value,
        timestamp: String(r.timestamp),
        headers: sc.headersObject(r.headers),
      })),
    })
    // One batch per partition: offsets follow the base offset in send order.
    const base = new Map(meta.map(m => [m.partition, BigInt(m.baseOffset)]))
    const next = new Map()
    return records.map(r => {
      assert.ok(base.has(r.partition), `${r.label}: no ack for partition ${r.partition}`)
      const n = next.get(r.partition) ?? 0n
      next.set(r.partition, n + 1n)
      return base.get(r.partition) + n
    })
  } finally {
    await producer.disconnect()
  }
}

async function fetchAndCompare(kafka, topic, records, offsets) {
  const want = new Map()
  records.forEach((r, i) => {
    if (!want.has(r.partition)) want.set(r.partition, [])
    want.get(r.partition).push({ r, offset: offsets[i] })
  })
  const c = cluster(kafka)
  await c.connect()
  try {
    await c.addTargetTopic(topic)
    await c.refreshMetadata()
    const got = new Map([...want.keys()].map(p => [p, []]))
    const position = new Map([...want.entries()].map(([p, l]) => [p, l[0].offset]))
    const deadline = Date.now() + 60000
    while ([...want.keys()].some(p => got.get(p).length < want.get(p).length)) {
      assert.ok(Date.now() < deadline, `timed out; got ${JSON.stringify([...got].map(([p, l]) => [p, l.length]))}`)
      const pending = [...want.keys()].filter(p => got.get(p).length < want.get(p).length)
      const byLeader = c.findLeaderForPartitions(topic, pending)
      for (const [leader, partitions] of Object.entries(byLeader)) {
        const broker = await c.findBroker({ nodeId: leader })
        const res = await broker.fetch({
          replicaId: -1, isolationLevel: 0, maxWaitTime: 500, minBytes: 1, maxBytes: 4194304,
          topics: [{ topic, partitions: partitions.map(p => ({ partition: p, fetchOffset: String(position.get(p)), maxBytes: 2097152 })) }],
        })
        for (const t of res.responses) {
          for (const p of t.partitions) {
            assert.equal(p.errorCode, 0, `fetch partition ${p.partition}: error ${p.errorCode}`)
            for (const m of p.messages) {
              const off = BigInt(m.offset)
              if (off < position.get(p.partition) || got.get(p.partition).length >= want.get(p.partition).length) continue
              got.get(p.partition).push(m)
              position.set(p.partition, off + 1n)
            }
          }
        }
      }
    }
    for (const [p, list] of want) {
      list.forEach(({ r, offset }, i) => {
        const m = got.get(p)[i]
        assert.equal(BigInt(m.offset), offset, `${r.label}: offset`)
        assert.deepEqual(m.key, r.key, `${r.label}: key`)
        assert.deepEqual(m.value, r.value, `${r.label}: value`)
        assert.equal(m.timestamp, String(r.timestamp), `${r.label}: timestamp`)
        assert.deepEqual(m.headers, sc.headersObject(r.headers), `${r.label}: headers`)
      })
    }
  } finally {
    await c.disconnect()
  }
}

describe('kafkajs', () => {
  const kafka = client()
  const admin = kafka.admin()
  const topic = sc.topicName('interop-kafkajs')

  before(async () => {
    await admin.connect()
  })
  after(async () => {
    await admin.disconnect()
  })

  it('admin creates a 3-partition topic', async () => {
    const created = await admin.createTopics({
      waitForLeaders: true,
      timeout: 30000,
      topics: [{ topic, numPartitions: sc.PARTITIONS, replicationFactor: 1, configEntries: [{ name: 'max.message.bytes', value: '2097152' }] }],
    })
    assert.equal(created, true)
    const md = await admin.fetchTopicMetadata({ topics: [topic] })
    assert.equal(md.topics[0].partitions.length, sc.PARTITIONS)
    assert.ok((await admin.listTopics()).includes(topic))
  })

  it('admin describes the topic config', async () => {
    const res = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: 2, name: topic, configNames: ['max.message.bytes'] }] })
    const entry = res.resources[0].configEntries.find(e => e.configName === 'max.message.bytes')
    assert.equal(entry?.configValue, '2097152')
  })

  for (const compression of sc.COMPRESSIONS) {
    it(`produce and fetch back byte-exact: ${compression}`, async () => {
      // kafkajs cannot send a header whose value is null.
      const records = sc.recordsFor(compression, { nullHeaders: false })
      await fetchAndCompare(kafka, topic, records, await produce(kafka, topic, compression, records))
    })
  }

  it('produce and fetch back a 1 MiB record', async () => {
    const records = [sc.bigRecord()]
    await fetchAndCompare(kafka, topic, records, await produce(kafka, topic, 'none', records))
  })

  it('list offsets (earliest, latest, by timestamp)', async () => {
    const latest = await admin.fetchTopicOffsets(topic)
    assert.equal(latest.length, sc.PARTITIONS)
    for (const p of latest) {
      assert.equal(p.low, '0')
      assert.ok(BigInt(p.high) > 0n, `partition ${p.partition} high ${p.high}`)
    }
    const byTime = await admin.fetchTopicOffsetsByTimestamp(topic, sc.BASE_TIMESTAMP)
    for (const p of byTime) assert.equal(p.offset, '0', `partition ${p.partition}`)
  })

  it('unknown topic fails with UNKNOWN_TOPIC_OR_PARTITION', { skip: sc.autocreateOff() ? false : 'needs INTEROP_AUTOCREATE_OFF=1' }, async () => {
    const missing = sc.topicName('interop-kafkajs-missing')
    const producer = kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 1, initialRetryTime: 100 } })
    await producer.connect()
    try {
      await assert.rejects(
        producer.send({ topic: missing, messages: [{ value: 'v' }] }),
        err => {
          for (let e = err; e; e = e.originalError ?? e.cause) if (e.type === 'UNKNOWN_TOPIC_OR_PARTITION') return true
          throw err
        },
      )
    } finally {
      await producer.disconnect()
    }
    assert.ok(!(await admin.listTopics()).includes(missing), 'topic was auto-created')
  })
})
