'use strict'
// The records every client suite sends (same shapes as interop/java's Scenario): per compression
// 12 records over 3 partitions with null/empty keys and values, duplicate, null-valued and empty
// headers and non-monotonic explicit timestamps; plus one 1 MiB incompressible record.
const crypto = require('node:crypto')

const COMPRESSIONS = ['none', 'gzip', 'snappy', 'lz4', 'zstd']
const PARTITIONS = 3
const RECORDS_PER_COMPRESSION = 12
const BIG_RECORD_BYTES = 1 << 20
const BASE_TIMESTAMP = 1700000000000

function recordsFor(compression, { nullHeaders = true } = {}) {
  const out = []
  for (let i = 0; i < RECORDS_PER_COMPRESSION; i++) {
    const key = i === 0 ? null : i === 1 ? Buffer.alloc(0) : Buffer.from(`key-${compression}-${i}`)
    let value
    if (i === 2) value = null
    else if (i === 3) value = Buffer.alloc(0)
    else if (i % 2 === 0) value = Buffer.from(`compressible value ${compression} `.repeat(20 + i * 10))
    else value = crypto.randomBytes(1 + crypto.randomInt(4000))
    const headers = []
    if (i % 5 !== 0) {
      headers.push(['h-index', Buffer.from(String(i))], ['h-dup', Buffer.from('first')], ['h-dup', Buffer.from('second')])
      if (i % 4 === 0 && nullHeaders) headers.push(['h-null', null])
      if (i % 3 === 0) headers.push(['h-empty', Buffer.alloc(0)])
    }
    const timestamp = BASE_TIMESTAMP + ((i * 7919) % 13) * 1000
    out.push({ partition: i % PARTITIONS, key, value, timestamp, headers, label: `${compression}#${i}` })
  }
  return out
}

function bigRecord() {
  return {
    partition: 1,
    key: Buffer.from('big'),
    value: crypto.randomBytes(BIG_RECORD_BYTES),
    timestamp: BASE_TIMESTAMP + 99000,
    headers: [['size', Buffer.from('1MiB')]],
    label: 'big#0',
  }
}

// kafkajs represents headers as an object; repeated keys become arrays in arrival order.
function headersObject(list) {
  const obj = {}
  for (const [k, v] of list) {
    if (obj[k] === undefined) obj[k] = v
    else if (Array.isArray(obj[k])) obj[k].push(v)
    else obj[k] = [obj[k], v]
  }
  return obj
}

function topicName(prefix) {
  return `${prefix}-${crypto.randomBytes(4).toString('hex')}`
}

module.exports = {
  COMPRESSIONS, PARTITIONS, BASE_TIMESTAMP, recordsFor, bigRecord, headersObject, topicName,
  bootstrap: () => process.env.KARST_BOOTSTRAP || '127.0.0.1:9092',
  autocreateOff: () => process.env.INTEROP_AUTOCREATE_OFF === '1',
}
