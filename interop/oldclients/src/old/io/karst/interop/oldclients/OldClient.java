package io.karst.interop.oldclients;

import static io.karst.interop.oldclients.Checks.require;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * One pre-2.1 kafka-clients generation (0.10.2 to 2.0, the clients Kafka 4 refuses) against one
 * broker: java -cp 'target/old:target/lib/VERSION/*' io.karst.interop.oldclients.OldClient
 * BOOTSTRAP VERSION OWN_TOPIC FROM_44_TOPIC GROUP. Compiled against kafka-clients 0.10.2.2, so it
 * uses only the API that version has (poll(long), committed(TopicPartition)). It writes the
 * Corpus with every codec to its own topic (each acknowledged offset checked), reads it back in a
 * group that commits, resumes a fresh member from the commits, and reads what kafka-clients 4.4
 * wrote transactionally with headers (Modern setup).
 */
public final class OldClient {
    private static final long DEADLINE_MS = 30_000;

    public static void main(String[] args) {
        String bootstrap = args[0];
        String version = args[1];
        String topic = args[2];
        String from44 = args[3];
        String group = args[4];
        Checks checks = new Checks();
        checks.check("client_version", () -> require(clientVersion().equals(version), "classpath has kafka-clients " + clientVersion()));
        boolean produced = true;
        for (int c = 0; c < Corpus.CODECS.length; c++) {
            final int codec = c;
            produced &= checks.check("produce_" + Corpus.CODECS[c], () -> produce(bootstrap, version, topic, codec));
        }
        Map<TopicPartition, OffsetAndMetadata> commits = new HashMap<>();
        for (int p = 0; p < Corpus.PARTITIONS; p++) commits.put(new TopicPartition(topic, p), new OffsetAndMetadata(3 + 2 * p, "old-" + version + "-" + p));
        boolean committed = produced && checks.check("group_consume_commit", () -> consumeAndCommit(bootstrap, version, topic, group, commits));
        if (committed) {
            checks.check("group_resume_from_commits", () -> resume(bootstrap, version, topic, group, commits));
        } else {
            checks.notRun("group_resume_from_commits", "no commits");
        }
        checks.check("read_written_by_4_4", () -> {
            KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap, null, "earliest");
            try {
                List<TopicPartition> parts = new ArrayList<>();
                for (int p = 0; p < Corpus.PARTITIONS; p++) parts.add(new TopicPartition(from44, p));
                consumer.assign(parts);
                // Fetch v3 (0.10) and v4+ (0.11 on) both carry CreateTime; what 0.10 cannot see is headers.
                Map<Integer, List<Corpus.Entry>> read = readUntil(consumer, Corpus.RECORDS_PER_CODEC * Corpus.CODECS.length);
                for (int p = 0; p < Corpus.PARTITIONS; p++) {
                    String diff = Corpus.difference(Corpus.expected("4.4", p, true), read.get(p), true);
                    require(diff == null, "partition " + p + ": " + diff);
                }
            } finally {
                consumer.close();
            }
        });
        checks.finish(version);
    }

    private static Properties common(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("request.timeout.ms", "20000");
        p.put("reconnect.backoff.ms", "200");
        return p;
    }

    private static void produce(String bootstrap, String version, String topic, int codec) throws Exception {
        Properties p = common(bootstrap);
        p.put("acks", "all");
        p.put("compression.type", Corpus.CODECS[codec]);
        p.put("max.block.ms", "15000");
        // One batch per partition: each codec's records share a wrapper message.
        p.put("linger.ms", "50");
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < Corpus.RECORDS_PER_CODEC; i++) {
                String codecName = Corpus.CODECS[codec];
                acks.add(producer.send(new ProducerRecord<>(topic, Corpus.partitionOf(i), Corpus.timestamp(codec, i),
                    Corpus.key(version, codecName, i), Corpus.value(version, codecName, i))));
            }
            producer.flush();
            for (int i = 0; i < acks.size(); i++) {
                RecordMetadata at = acks.get(i).get(DEADLINE_MS, TimeUnit.MILLISECONDS);
                long want = Corpus.offsetOf(codec, i);
                require(at.partition() == Corpus.partitionOf(i) && at.offset() == want,
                    "record " + i + " acknowledged at " + at.partition() + "/" + at.offset() + ", expected " + Corpus.partitionOf(i) + "/" + want);
            }
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, String group, String reset) {
        Properties p = common(bootstrap);
        if (group != null) p.put("group.id", group);
        p.put("enable.auto.commit", "false");
        p.put("auto.offset.reset", reset);
        p.put("session.timeout.ms", "10000");
        p.put("heartbeat.interval.ms", "1000");
        // 0.11 on read with Fetch v4+, where aborted records are the reader's to skip.
        p.put("isolation.level", "read_committed");
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }

    private static void consumeAndCommit(String bootstrap, String version, String topic, String group,
                                         Map<TopicPartition, OffsetAndMetadata> commits) {
        KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap, group, "earliest");
        try {
            consumer.subscribe(Arrays.asList(topic));
            Map<Integer, List<Corpus.Entry>> read = readUntil(consumer, Corpus.RECORDS_PER_CODEC * Corpus.CODECS.length);
            for (int p = 0; p < Corpus.PARTITIONS; p++) {
                String diff = Corpus.difference(Corpus.expected(version, p, true), read.get(p), true);
                require(diff == null, "partition " + p + ": " + diff);
            }
            require(consumer.assignment().equals(commits.keySet()), "assignment " + consumer.assignment());
            consumer.commitSync(commits);
        } finally {
            consumer.close();
        }
    }

    private static void resume(String bootstrap, String version, String topic, String group,
                               Map<TopicPartition, OffsetAndMetadata> commits) {
        KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap, group, "none");
        try {
            consumer.subscribe(Arrays.asList(topic));
            int left = 0;
            for (OffsetAndMetadata c : commits.values()) left += Corpus.RECORDS_PER_CODEC * Corpus.CODECS.length / Corpus.PARTITIONS - (int) c.offset();
            Map<Integer, List<Corpus.Entry>> read = readUntil(consumer, left);
            for (int p = 0; p < Corpus.PARTITIONS; p++) {
                List<Corpus.Entry> all = Corpus.expected(version, p, true);
                List<Corpus.Entry> tail = all.subList((int) commits.get(new TopicPartition(topic, p)).offset(), all.size());
                String diff = Corpus.difference(tail, read.get(p), true);
                require(diff == null, "partition " + p + " after the commit: " + diff);
            }
            for (Map.Entry<TopicPartition, OffsetAndMetadata> c : commits.entrySet()) {
                OffsetAndMetadata got = consumer.committed(c.getKey());
                require(c.getValue().equals(got), "committed(" + c.getKey() + ") " + got + ", expected " + c.getValue());
            }
        } finally {
            consumer.close();
        }
    }

    /** Polls until count records arrived (per partition, in offset order) or DEADLINE_MS passed. */
    private static Map<Integer, List<Corpus.Entry>> readUntil(KafkaConsumer<byte[], byte[]> consumer, int count) {
        Map<Integer, List<Corpus.Entry>> read = new HashMap<>();
        for (int p = 0; p < Corpus.PARTITIONS; p++) read.put(p, new ArrayList<>());
        int n = 0;
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        while (n < count) {
            require(System.currentTimeMillis() < deadline, "read " + n + " of " + count + " records in " + DEADLINE_MS + " ms");
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(500)) {
                read.get(r.partition()).add(new Corpus.Entry(r.key(), r.value(), r.timestamp()));
                n++;
            }
        }
        return read;
    }

    private static String clientVersion() throws Exception {
        try (InputStream in = KafkaProducer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        }
    }
}
