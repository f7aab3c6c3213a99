'use strict'
// One kafkajs consumer-group member in its own process, driven by test/groups.test.js so that it
// can be killed (SIGKILL: no LeaveGroup). Usage: node group-member.js BOOTSTRAP GROUP TOPIC
// stdout: "owns P,Q" whenever its assignment changes (empty while rebalancing), "consumed P OFFSET
// VALUE" for each record before it is committed, "left" after a clean disconnect. Each record is
// committed at once; a failed commit is retried on the next record or tick, and dropped when the
// partitions are taken away. stdin "close" (or its end) disconnects, which leaves the group.
// Its 6 s session timeout is the broker's default group.min.session.timeout.ms, so a crashed
// member is out of the group 6 s after it died.
const readline = require('node:readline')
const { Kafka, logLevel } = require('kafkajs')

const [bootstrap, groupId, topic] = process.argv.slice(2)
const say = line => process.stdout.write(line + '\n')

async function main() {
  const kafka = new Kafka({
    clientId: 'karst-interop-node-member',
    brokers: [bootstrap],
    logLevel: logLevel.WARN,
    connectionTimeout: 10000,
    requestTimeout: 30000,
    retry: { retries: 10, initialRetryTime: 100, maxRetryTime: 1000 },
  })
  const consumer = kafka.consumer({
    groupId,
    sessionTimeout: 6000,
    heartbeatInterval: 1000,
    maxWaitTimeInMs: 200,
    allowAutoTopicCreation: false,
  })
  const pending = new Map() // partition -> next offset to commit
  let owned = null
  const report = partitions => {
    const now = [...partitions].sort((a, b) => a - b).join(',')
    if (now !== owned) say(`owns ${now}`)
    owned = now
  }
  const commit = async () => {
    if (pending.size === 0) return
    const offsets = [...pending]
    try {
      await consumer.commitOffsets(offsets.map(([partition, offset]) => ({ topic, partition, offset: String(offset) })))
      for (const [p, o] of offsets) if (pending.get(p) === o) pending.delete(p)
    } catch (e) {
      process.stderr.write(`commit failed (retried): ${e}\n`)
    }
  }
  consumer.on(consumer.events.REBALANCING, () => { pending.clear(); report([]) })
  consumer.on(consumer.events.GROUP_JOIN, e => report(e.payload.memberAssignment[topic] || []))

  await consumer.connect()
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ partition, message }) => {
      say(`consumed ${partition} ${message.offset} ${message.value.toString()}`)
      pending.set(partition, BigInt(message.offset) + 1n)
      await commit()
    },
  })
  const retry = setInterval(commit, 200)

  let closing = false
  const close = async () => {
    if (closing) return
    closing = true
    clearInterval(retry)
    await commit()
    await consumer.disconnect()
    say('left')
    process.exit(0)
  }
  const rl = readline.createInterface({ input: process.stdin })
  rl.on('line', line => { if (line.trim() === 'close') close() })
  rl.on('close', close)
}

main().catch(e => {
  process.stderr.write(`member failed: ${e.stack || e}\n`)
  process.exit(1)
})
