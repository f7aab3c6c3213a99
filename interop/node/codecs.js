'use strict'
// Registers kafkajs codecs for snappy, lz4 and zstd. kafkajs ships only gzip; these use
// pure-JavaScript (or emscripten) libraries so that no native build or binary download is needed.
const { CompressionTypes, CompressionCodecs } = require('kafkajs')
const SnappyCodec = require('kafkajs-snappy')
const lz4js = require('lz4js')
const xxh32 = require('lz4js/xxh32.js')
const { ZstdCodec } = require('zstd-codec')

let zstdReady
function zstd() {
  if (!zstdReady) zstdReady = new Promise(resolve => ZstdCodec.run(z => resolve(new z.Simple())))
  return zstdReady
}

// lz4js writes a frame whose descriptor lacks the block-independence flag; Kafka (like its Java
// client) accepts only independent blocks. A batch under the 4 MiB block size is a single block,
// so setting the flag is truthful; the descriptor checksum is then recomputed.
const LZ4_MAX_SINGLE_BLOCK = 4 * 1024 * 1024
const LZ4_FLG_BLOCK_INDEPENDENCE = 0x20

function lz4Compress(input) {
  if (input.length > LZ4_MAX_SINGLE_BLOCK) throw new Error('lz4 codec: batch larger than one 4 MiB block')
  const frame = Buffer.from(lz4js.compress(input))
  frame[4] |= LZ4_FLG_BLOCK_INDEPENDENCE
  frame[6] = (xxh32.hash(0, frame, 4, 2) >> 8) & 0xff
  return frame
}

const LZ4Codec = () => ({
  async compress(encoder) {
    return lz4Compress(encoder.buffer)
  },
  async decompress(buffer) {
    return Buffer.from(lz4js.decompress(buffer))
  },
})

const ZstdCodecForKafka = () => ({
  async compress(encoder) {
    return Buffer.from((await zstd()).compress(encoder.buffer))
  },
  async decompress(buffer) {
    return Buffer.from((await zstd()).decompress(buffer))
  },
})

CompressionCodecs[CompressionTypes.Snappy] = SnappyCodec
CompressionCodecs[CompressionTypes.LZ4] = LZ4Codec
CompressionCodecs[CompressionTypes.ZSTD] = ZstdCodecForKafka

module.exports = { CompressionTypes }
