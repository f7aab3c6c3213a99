package io.karst.interop;

import static io.karst.interop.Main.require;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Creates a 3-partition topic with AdminClient, produces the Scenario records with every
 * compression type and a 1 MiB record, then reads them back with an assigned (group-less)
 * consumer and compares them byte for byte, in per-partition order, with the offsets the
 * producer was told.
 */
final class ProduceConsumeSuite {
    private final String bootstrap;
    private final Main.Checks checks;
    private final String topic = "interop-java-" + UUID.randomUUID().toString().substring(0, 8);
    private final long seed = System.nanoTime();
    /** Per partition, the records in the order the broker acknowledged them (by offset). */
    private final Map<Integer, List<Sent>> sent = new HashMap<>();

    private record Sent(ExpectedRecord record, long offset) {}

    ProduceConsumeSuite(String bootstrap, Main.Checks checks) {
        this.bootstrap = bootstrap;
        this.checks = checks;
    }

    void run() {
        if (!checks.check("admin_create_topic", this::createTopic)) return;
        checks.check("admin_describe_topic_config", this::describeTopicConfig);
        for (String compression : Scenario.COMPRESSIONS) {
            checks.check("produce_" + compression, () -> produce(compression, Scenario.recordsFor(compression, seed)));
        }
        checks.check("produce_1mib_record", () -> produce("none", List.of(Scenario.bigRecord(seed))));
        checks.check("list_offsets", this::listOffsets);
        checks.check("consume_assign_byte_exact", this::consumeAndCompare);
    }

    private Properties common() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return p;
    }

    private void createTopic() throws Exception {
        try (Admin admin = Admin.create(common())) {
            NewTopic nt = new NewTopic(topic, Scenario.PARTITIONS, (short) 1)
                    .configs(Map.of("max.message.bytes", "2097152"));
            admin.createTopics(List.of(nt)).all().get(30, TimeUnit.SECONDS);
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
            require(d.partitions().size() == Scenario.PARTITIONS, "want 3 partitions, got " + d.partitions().size());
            for (var p : d.partitions()) require(p.leader() != null && p.leader().id() >= 0, "partition " + p.partition() + " has no leader");
            require(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic), "listTopics lacks " + topic);
        }
    }

    private void describeTopicConfig() throws Exception {
        try (Admin admin = Admin.create(common())) {
            ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config cfg = admin.describeConfigs(List.of(res)).all().get(30, TimeUnit.SECONDS).get(res);
            var entry = cfg.get("max.message.bytes");
            require(entry != null && "2097152".equals(entry.value()), "max.message.bytes = " + (entry == null ? null : entry.value()));
        }
    }

    private void produce(String compression, List<ExpectedRecord> records) throws Exception {
        Properties p = common();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, "2097152");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            for (ExpectedRecord r : records) {
                var pr = new ProducerRecord<>(topic, r.partition(), r.timestamp(), r.key(), r.value());
                for (var h : r.headers()) pr.headers().add(new RecordHeader(h.key(), h.value()));
                futures.add(producer.send(pr));
            }
            producer.flush();
            for (int i = 0; i < records.size(); i++) {
                RecordMetadata md = futures.get(i).get(30, TimeUnit.SECONDS);
                ExpectedRecord r = records.get(i);
                require(md.partition() == r.partition(), r.label() + ": acked on partition " + md.partition());
                require(md.offset() >= 0, r.label() + ": no offset in ack");
                require(md.timestamp() == r.timestamp(), r.label() + ": ack timestamp " + md.timestamp() + " want " + r.timestamp());
                sent.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(new Sent(r, md.offset()));
            }
        }
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        Properties p = common();
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.CHECK_CRCS_CONFIG, "true");
        return new KafkaConsumer<>(p);
    }

    private List<TopicPartition> partitions() {
        List<TopicPartition> tps = new ArrayList<>();
        for (int i = 0; i < Scenario.PARTITIONS; i++) tps.add(new TopicPartition(topic, i));
        return tps;
    }

    private void listOffsets() {
        try (var c = consumer()) {
            Map<TopicPartition, Long> begin = c.beginningOffsets(partitions(), Duration.ofSeconds(30));
            Map<TopicPartition, Long> end = c.endOffsets(partitions(), Duration.ofSeconds(30));
            for (TopicPartition tp : partitions()) {
                List<Sent> s = sent.getOrDefault(tp.partition(), List.of());
                require(begin.get(tp) == 0L, tp + ": beginning offset " + begin.get(tp));
                long want = s.isEmpty() ? 0 : s.get(s.size() - 1).offset() + 1;
                require(end.get(tp) == want, tp + ": end offset " + end.get(tp) + " want " + want);
            }
            // ListOffsets by timestamp: the earliest record at or after BASE_TIMESTAMP.
            Map<TopicPartition, Long> query = new HashMap<>();
            for (TopicPartition tp : partitions()) query.put(tp, Scenario.BASE_TIMESTAMP);
            var byTime = c.offsetsForTimes(query, Duration.ofSeconds(30));
            for (TopicPartition tp : partitions()) {
                require(byTime.get(tp) != null && byTime.get(tp).offset() == 0L, tp + ": offsetsForTimes(base) = " + byTime.get(tp));
            }
        }
    }

    private void consumeAndCompare() {
        Map<Integer, Integer> want = new HashMap<>();
        sent.forEach((p, l) -> want.put(p, l.size()));
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> got = new HashMap<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try (var c = consumer()) {
            c.assign(partitions());
            c.seekToBeginning(partitions());
            while (!complete(got, want)) {
                require(System.nanoTime() < deadline, "timed out; got " + counts(got) + " want " + want);
                for (var rec : c.poll(Duration.ofMillis(500))) {
                    got.computeIfAbsent(rec.partition(), k -> new ArrayList<>()).add(rec);
                }
            }
        }
        for (var e : sent.entrySet()) {
            List<Sent> s = e.getValue();
            List<ConsumerRecord<byte[], byte[]>> g = got.get(e.getKey());
            require(g.size() == s.size(), "partition " + e.getKey() + ": got " + g.size() + " records, want " + s.size());
            for (int i = 0; i < s.size(); i++) {
                Sent want1 = s.get(i);
                var rec = g.get(i);
                require(rec.offset() == want1.offset(), want1.record().label() + ": offset " + rec.offset() + " want " + want1.offset());
                require(rec.timestampType() == TimestampType.CREATE_TIME, want1.record().label() + ": timestamp type " + rec.timestampType());
                List<ExpectedRecord.Header> hs = new ArrayList<>();
                for (var h : rec.headers()) hs.add(new ExpectedRecord.Header(h.key(), h.value()));
                String diff = want1.record().diff(rec.key(), rec.value(), rec.timestamp(), hs);
                require(diff == null, diff);
            }
        }
    }

    private static boolean complete(Map<Integer, List<ConsumerRecord<byte[], byte[]>>> got, Map<Integer, Integer> want) {
        for (var e : want.entrySet()) {
            if (got.getOrDefault(e.getKey(), List.of()).size() < e.getValue()) return false;
        }
        return true;
    }

    private static Map<Integer, Integer> counts(Map<Integer, List<ConsumerRecord<byte[], byte[]>>> got) {
        Map<Integer, Integer> m = new HashMap<>();
        got.forEach((k, v) -> m.put(k, v.size()));
        return m;
    }
}
