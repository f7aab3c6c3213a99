package io.karst.interop.oldclients;

import static io.karst.interop.oldclients.Checks.require;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import kafka.api.FetchRequestBuilder;
import kafka.api.PartitionOffsetRequestInfo;
import kafka.common.OffsetAndMetadata;
import kafka.common.OffsetMetadataAndError;
import kafka.common.TopicAndPartition;
import kafka.javaapi.FetchResponse;
import kafka.javaapi.OffsetCommitRequest;
import kafka.javaapi.OffsetCommitResponse;
import kafka.javaapi.OffsetFetchRequest;
import kafka.javaapi.OffsetRequest;
import kafka.javaapi.OffsetResponse;
import kafka.javaapi.consumer.SimpleConsumer;
import kafka.message.MessageAndOffset;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The 0.8.2.2 clients (kafka_2.10 0.8.2.2 with its kafka-clients) against one broker:
 * java -cp 'target/old08:target/lib/0.8.2.2/*' io.karst.interop.oldclients.Old08 HOST PORT
 * OWN_TOPIC FROM_44_TOPIC GROUP. The Java KafkaProducer of 0.8.2 writes the Corpus with every
 * codec (Produce v0, message format v0; its lz4 frames carry the wrong header checksum of
 * KAFKA-3160); the Scala SimpleConsumer fetches it back (Fetch v0), asks for the earliest and
 * latest offsets (ListOffsets v0), commits and fetches offsets with versions 0 and 1 (v1 with a
 * commit timestamp), and reads what kafka-clients 4.4 wrote transactionally with headers.
 */
public final class Old08 {
    private static final long DEADLINE_MS = 30_000;
    private static final String GENERATION = "0.8.2.2";
    private static final int FETCH_BYTES = 1 << 20;

    public static void main(String[] args) {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        String topic = args[2];
        String from44 = args[3];
        String group = args[4];
        Checks checks = new Checks();
        boolean produced = true;
        for (int c = 0; c < Corpus.CODECS.length; c++) {
            final int codec = c;
            produced &= checks.check("produce_" + Corpus.CODECS[c], () -> produce(host + ":" + port, topic, codec));
        }
        SimpleConsumer consumer = new SimpleConsumer(host, port, 20_000, FETCH_BYTES, "karst-interop-0.8");
        try {
            if (produced) {
                checks.check("fetch_v0", () -> {
                    for (int p = 0; p < Corpus.PARTITIONS; p++) {
                        String diff = Corpus.difference(Corpus.expected(GENERATION, p, false), fetchAll(consumer, topic, p), false);
                        require(diff == null, "partition " + p + ": " + diff);
                    }
                });
                checks.check("list_offsets_v0", () -> {
                    long end = Corpus.RECORDS_PER_CODEC * Corpus.CODECS.length / Corpus.PARTITIONS;
                    for (int p = 0; p < Corpus.PARTITIONS; p++) {
                        long[] latest = offsetsBefore(consumer, topic, p, kafka.api.OffsetRequest.LatestTime());
                        long[] earliest = offsetsBefore(consumer, topic, p, kafka.api.OffsetRequest.EarliestTime());
                        require(latest.length >= 1 && latest[0] == end, "latest of partition " + p + " is " + java.util.Arrays.toString(latest));
                        require(earliest.length == 1 && earliest[0] == 0, "earliest of partition " + p + " is " + java.util.Arrays.toString(earliest));
                    }
                });
            } else {
                checks.notRun("fetch_v0", "nothing produced");
                checks.notRun("list_offsets_v0", "nothing produced");
            }
            for (short version = 0; version <= 1; version++) {
                final short v = version;
                checks.check("group_commit_fetch_offsets_v" + v, () -> commitAndFetch(consumer, topic, group + "-v" + v, v));
            }
            checks.check("fetch_written_by_4_4", () -> {
                for (int p = 0; p < Corpus.PARTITIONS; p++) {
                    // Magic 0 has no timestamps and no headers: keys and values only.
                    String diff = Corpus.difference(Corpus.expected("4.4", p, false), fetchAll(consumer, from44, p), false);
                    require(diff == null, "partition " + p + ": " + diff);
                }
            });
        } finally {
            consumer.close();
        }
        checks.finish(GENERATION);
    }

    private static void produce(String bootstrap, String topic, int codec) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("acks", "-1");
        p.put("compression.type", Corpus.CODECS[codec]);
        p.put("linger.ms", "50");
        p.put("timeout.ms", "20000");
        p.put("metadata.fetch.timeout.ms", "20000");
        p.put("key.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
        p.put("value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
        try {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < Corpus.RECORDS_PER_CODEC; i++) {
                String name = Corpus.CODECS[codec];
                acks.add(producer.send(new ProducerRecord<>(topic, Corpus.partitionOf(i), Corpus.key(GENERATION, name, i), Corpus.value(GENERATION, name, i))));
            }
            for (int i = 0; i < acks.size(); i++) {
                RecordMetadata at = acks.get(i).get(DEADLINE_MS, TimeUnit.MILLISECONDS);
                long want = Corpus.offsetOf(codec, i);
                require(at.partition() == Corpus.partitionOf(i) && at.offset() == want,
                    "record " + i + " acknowledged at " + at.partition() + "/" + at.offset() + ", expected " + Corpus.partitionOf(i) + "/" + want);
            }
        } finally {
            producer.close();
        }
    }

    /**
     * Fetches a partition from offset 0 until it holds as many records as the Corpus puts there,
     * as 0.8 consumers loop. Not to the high watermark: a partition that ends in transaction
     * markers or aborted records never gets there, as Fetch v0 carries neither (Kafka 3.x alike).
     */
    private static List<Corpus.Entry> fetchAll(SimpleConsumer consumer, String topic, int partition) {
        int count = Corpus.RECORDS_PER_CODEC * Corpus.CODECS.length / Corpus.PARTITIONS;
        List<Corpus.Entry> out = new ArrayList<>();
        long offset = 0;
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        while (true) {
            require(System.currentTimeMillis() < deadline, "fetched " + out.size() + " records in " + DEADLINE_MS + " ms");
            FetchResponse r = consumer.fetch(new FetchRequestBuilder().clientId("karst-interop-0.8")
                .addFetch(topic, partition, offset, FETCH_BYTES).maxWait(100).build());
            require(!r.hasError(), "fetch error " + r.errorCode(topic, partition));
            for (MessageAndOffset mo : r.messageSet(topic, partition)) {
                // A compressed wrapper's inner messages may start before the offset asked for.
                if (mo.offset() < offset) continue;
                out.add(new Corpus.Entry(bytes(mo.message().key()), bytes(mo.message().payload()), -1));
                offset = mo.nextOffset();
            }
            if (out.size() >= count) return out;
        }
    }

    private static long[] offsetsBefore(SimpleConsumer consumer, String topic, int partition, long time) {
        Map<TopicAndPartition, PartitionOffsetRequestInfo> ask = new HashMap<>();
        ask.put(new TopicAndPartition(topic, partition), new PartitionOffsetRequestInfo(time, 10));
        OffsetResponse r = consumer.getOffsetsBefore(new OffsetRequest(ask, kafka.api.OffsetRequest.CurrentVersion(), "karst-interop-0.8"));
        require(!r.hasError(), "offsets error " + r.errorCode(topic, partition));
        return r.offsets(topic, partition);
    }

    /** Commits a different offset and metadata per partition with one version and reads them back with it. */
    private static void commitAndFetch(SimpleConsumer consumer, String topic, String group, short version) {
        Map<TopicAndPartition, OffsetAndMetadata> commits = new HashMap<>();
        List<TopicAndPartition> parts = new ArrayList<>();
        long now = System.currentTimeMillis();
        for (int p = 0; p < Corpus.PARTITIONS; p++) {
            TopicAndPartition tp = new TopicAndPartition(topic, p);
            parts.add(tp);
            commits.put(tp, new OffsetAndMetadata(2 + p, "v" + version + "-" + p, now));
        }
        OffsetCommitResponse committed = consumer.commitOffsets(new OffsetCommitRequest(group, commits, 1, "karst-interop-0.8", version));
        require(!committed.hasError(), "commit errors " + committed.errors());
        Map<TopicAndPartition, OffsetMetadataAndError> fetched = consumer.fetchOffsets(new OffsetFetchRequest(group, parts, version, 2, "karst-interop-0.8")).offsets();
        for (TopicAndPartition tp : parts) {
            OffsetMetadataAndError got = fetched.get(tp);
            OffsetAndMetadata want = commits.get(tp);
            require(got != null && got.error() == 0 && got.offset() == want.offset() && got.metadata().equals(want.metadata()),
                "fetched " + got + " for " + tp + ", committed " + want);
        }
    }

    private static byte[] bytes(ByteBuffer b) {
        if (b == null) return null;
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
