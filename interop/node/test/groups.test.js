'use strict'
// kafkajs consumer group against KARST_BOOTSTRAP (INTEROP_GROUPS=0 skips it): a consumer group
// run reads every record of a 3-partition topic and commits; after more records are produced a
// second run of the same group resumes exactly after the committed offsets.
//
// Membership: kafkajs members over a 6-partition topic, each in its own process (../group-member.js)
// so that one can crash (SIGKILL, no LeaveGroup; its 6 s session timeout takes it out). Three
// join; one leaves (disconnect); one crashes; both come back; all leave and a restarted member
// reads what was produced meanwhile; records are produced before and after each step. Once the
// group is stable (several consecutive samples) every partition has exactly one owner, by the
// members' own assignments and by describeGroups; no record is skipped; none is consumed twice
// except what the crashed member read but had not committed; the committed offsets cover all.
const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { spawn } = require('node:child_process')
const path = require('node:path')
const readline = require('node:readline')
const { Kafka, logLevel, AssignerProtocol } = require('kafkajs')
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

const MEMBER_PARTITIONS = 6
const MEMBERSHIP_DEADLINE_MS = 120000
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

// A member process and what it reported; `ledger` maps each consumed value to the members that read it.
class Member {
  constructor(name, groupId, topic, ledger) {
    this.name = name
    this.owns = new Set()
    this.left = false
    this.stderr = ''
    this.proc = spawn(process.execPath, [path.join(__dirname, '..', 'group-member.js'), sc.bootstrap(), groupId, topic],
      { stdio: ['pipe', 'pipe', 'pipe'] })
    this.exited = new Promise(resolve => this.proc.on('exit', resolve))
    this.proc.stderr.on('data', d => { this.stderr = (this.stderr + d).slice(-3000) })
    this.stdoutDone = new Promise(resolve => {
      const rl = readline.createInterface({ input: this.proc.stdout })
      rl.on('line', line => {
        const f = line.split(' ')
        if (f[0] === 'owns') this.owns = new Set(f[1] ? f[1].split(',').map(Number) : [])
        else if (f[0] === 'consumed' && f.length === 4) {
          if (!ledger.has(f[3])) ledger.set(f[3], [])
          ledger.get(f[3]).push(this.name)
        } else if (f[0] === 'left') { this.left = true; this.owns = new Set() }
      })
      rl.on('close', resolve)
    })
  }

  async leave() {
    this.proc.stdin.end('close\n')
    let timer
    const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`member ${this.name} did not close`)), 60000) })
    await Promise.race([this.exited, late]).finally(() => clearTimeout(timer))
    await this.stdoutDone
    assert.ok(this.left, `member ${this.name} exited without leaving: ${this.stderr}`)
  }

  async crash() {
    this.proc.kill('SIGKILL')
    await this.exited
    await this.stdoutDone
    this.owns = new Set()
  }

  kill() {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL')
  }
}

describe('kafkajs consumer group membership', { skip }, () => {
  const kafka = client()
  const admin = kafka.admin()
  const producer = kafka.producer({ allowAutoTopicCreation: false })
  const topic = sc.topicName('interop-kafkajs-members')
  const groupId = sc.topicName('interop-kafkajs-members')
  const ledger = new Map()
  const produced = []
  const started = []
  let deadline

  before(async () => {
    await admin.connect()
    await producer.connect()
    await admin.createTopics({ waitForLeaders: true, timeout: 30000, topics: [{ topic, numPartitions: MEMBER_PARTITIONS, replicationFactor: 1 }] })
  })
  after(async () => {
    for (const m of started) m.kill()
    await producer.disconnect()
    await admin.disconnect()
  })

  async function produce(tag) {
    const messages = []
    for (let i = 0; i < 60; i++) {
      messages.push({ partition: i % MEMBER_PARTITIONS, value: `${tag}-${i}` })
      produced.push(`${tag}-${i}`)
    }
    await producer.send({ topic, acks: -1, timeout: 30000, messages })
  }

  function start(name) {
    const m = new Member(name, groupId, topic, ledger)
    started.push(m)
    return m
  }

  async function eventually(what, cond) {
    while (!(await cond())) {
      if (Date.now() > deadline) {
        const owns = started.map(m => `${m.name}=${[...m.owns]}`).join(' ')
        throw new Error(`timed out waiting until ${what}; members ${owns}; stderr ${started.map(m => m.stderr).join(' | ')}`)
      }
      await sleep(50)
    }
  }

  const allPartitions = [...Array(MEMBER_PARTITIONS).keys()]
  const exactlyAll = list => JSON.stringify([...list].sort((a, b) => a - b)) === JSON.stringify(allPartitions)

  // The broker's view: stable with n members, each partition assigned to exactly one of them.
  async function describedStable(n) {
    let g
    try {
      g = (await admin.describeGroups([groupId])).groups[0]
    } catch {
      return false
    }
    if (g.state !== 'Stable' || g.members.length !== n) return false
    const assigned = g.members.flatMap(m => AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment[topic] ?? [])
    return exactlyAll(assigned)
  }

  async function settle(what, members) {
    let streak = 0
    await eventually(what, async () => {
      const ok = members.every(m => m.owns.size > 0) && exactlyAll(members.flatMap(m => [...m.owns])) && await describedStable(members.length)
      streak = ok ? streak + 1 : 0
      return streak >= 5
    })
  }

  const consumedAll = what => eventually(`${produced.length} records consumed ${what}`, () => produced.every(v => ledger.has(v)))

  async function committedAll(when) {
    const res = await admin.fetchOffsets({ groupId, topics: [topic] })
    const sum = res[0].partitions.reduce((s, p) => s + Number(p.offset), 0)
    assert.equal(sum, produced.length, `committed ${when}: ${JSON.stringify(res[0].partitions)}`)
  }

  it('members join, leave, crash and come back; a restarted member resumes', async () => {
    deadline = Date.now() + MEMBERSHIP_DEADLINE_MS
    await produce('before')
    const [a, b, c] = [start('a'), start('b'), start('c')]
    await produce('joining')
    await settle('3 members own 2 partitions each', [a, b, c])
    assert.deepEqual([a, b, c].map(m => m.owns.size), [2, 2, 2])
    await consumedAll('by 3 members')

    await a.leave()
    await produce('after-leave')
    await settle('the 2 remaining members own all 6 partitions', [b, c])
    await consumedAll('after a leave')

    await b.crash()
    await produce('after-crash')
    await settle("the last member owns all 6 partitions once the crashed one's session expired", [c])
    await consumedAll('after a crash')

    const [a2, b2] = [start('a2'), start('b2')]
    await produce('rejoining')
    await settle('3 members own 2 partitions each again', [c, a2, b2])
    await consumedAll('after the return')

    for (const m of [c, a2, b2]) await m.leave()
    await committedAll('after every member left')
    await produce('while-empty')
    const d = start('d')
    await settle('a restarted member owns every partition', [d])
    await consumedAll('by the restarted member')
    await d.leave()
    await committedAll('at the end')

    const unexpected = [...ledger.keys()].filter(v => !produced.includes(v))
    assert.deepEqual(unexpected, [], 'consumed records never produced')
    for (const v of produced) {
      const by = ledger.get(v)
      assert.ok(by, `record ${v} skipped`)
      assert.ok(by.length === 1 || (by.length === 2 && by[0] === 'b' && by[1] !== 'b'),
        `record ${v} consumed by ${by}: a committed record was consumed again`)
    }
  })
})
