package io.karst.interop.oldclients;

import static io.karst.interop.oldclients.Checks.require;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * kafka-clients 4.4 on the other side of the old generations:
 * <ul>
 * <li>{@code setup BOOTSTRAP FROM_44_TOPIC TOPIC...} creates the topics (3 partitions each) and
 * writes the Corpus as generation "4.4" to FROM_44_TOPIC the way only new clients can: one
 * transaction per codec from an idempotent transactional producer, each record with headers, and
 * an aborted transaction between them, so that old readers show that markers, aborted records and
 * headers do not reach them.</li>
 * <li>{@code verify BOOTSTRAP GENERATION:TOPIC:TIMESTAMPS...} reads what each old generation
 * wrote (read_committed) and compares it byte for byte; TIMESTAMPS is "create" for a generation
 * whose format has them (magic 1), "none" for magic 0, whose records carry -1, and "any" for a
 * writer that stamps its own send time (not compared).</li>
 * </ul>
 */
public final class Modern {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    public static void main(String[] args) {
        Checks checks = new Checks();
        String bootstrap = args[1];
        if (args[0].equals("setup")) {
            String from44 = args[2];
            List<String> topics = new ArrayList<>(List.of(args).subList(2, args.length));
            checks.check("create_topics", () -> createTopics(bootstrap, topics));
            checks.check("produce_transactional_with_headers", () -> produceTransactional(bootstrap, from44));
            checks.finish("setup");
        } else {
            for (int n = 2; n < args.length; n++) {
                String[] spec = args[n].split(":");
                checks.check("read_by_4_4_from_" + spec[0], () -> verify(bootstrap, spec[0], spec[1], spec[2]));
            }
            checks.finish("verify");
        }
    }

    private static Properties common(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("request.timeout.ms", "15000");
        p.put("default.api.timeout.ms", "20000");
        return p;
    }

    private static void createTopics(String bootstrap, List<String> topics) throws Exception {
        try (Admin admin = Admin.create(common(bootstrap))) {
            List<NewTopic> news = new ArrayList<>();
            // The Corpus's timestamps are from 2017: kept past any retention.ms, which would delete them.
            for (String t : topics) news.add(new NewTopic(t, Corpus.PARTITIONS, (short) 1).configs(Map.of("retention.ms", "-1")));
            admin.createTopics(news).all().get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private static void produceTransactional(String bootstrap, String topic) throws Exception {
        for (int c = 0; c < Corpus.CODECS.length; c++) {
            Properties p = common(bootstrap);
            p.put("transactional.id", topic + "-writer");
            p.put("compression.type", Corpus.CODECS[c]);
            p.put("max.block.ms", "20000");
            p.put("key.serializer", ByteArraySerializer.class.getName());
            p.put("value.serializer", ByteArraySerializer.class.getName());
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
                producer.initTransactions();
                producer.beginTransaction();
                for (int i = 0; i < Corpus.RECORDS_PER_CODEC; i++) {
                    ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, Corpus.partitionOf(i), Corpus.timestamp(c, i),
                        Corpus.key("4.4", Corpus.CODECS[c], i), Corpus.value("4.4", Corpus.CODECS[c], i));
                    r.headers().add("generation", "4.4".getBytes(StandardCharsets.UTF_8)).add("empty", new byte[0]).add("null", null);
                    producer.send(r);
                }
                producer.commitTransaction();
                producer.beginTransaction();
                for (int pt = 0; pt < Corpus.PARTITIONS; pt++) {
                    producer.send(new ProducerRecord<>(topic, pt, "aborted".getBytes(StandardCharsets.UTF_8), "aborted".getBytes(StandardCharsets.UTF_8)));
                }
                producer.flush();
                producer.abortTransaction();
            }
        }
    }

    private static void verify(String bootstrap, String generation, String topic, String timestamps) {
        Properties p = common(bootstrap);
        p.put("isolation.level", "read_committed");
        p.put("auto.offset.reset", "earliest");
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> parts = new ArrayList<>();
            for (int pt = 0; pt < Corpus.PARTITIONS; pt++) parts.add(new TopicPartition(topic, pt));
            consumer.assign(parts);
            Map<Integer, List<Corpus.Entry>> read = new HashMap<>();
            for (int pt = 0; pt < Corpus.PARTITIONS; pt++) read.put(pt, new ArrayList<>());
            int want = Corpus.RECORDS_PER_CODEC * Corpus.CODECS.length;
            int n = 0;
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (n < want) {
                require(System.nanoTime() < deadline, "read " + n + " of " + want + " records in " + DEADLINE);
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    Header[] headers = r.headers().toArray();
                    require(headers.length == 0, "record at " + r.partition() + "/" + r.offset() + " has " + headers.length + " headers");
                    read.get(r.partition()).add(new Corpus.Entry(r.key(), r.value(), r.timestamp()));
                    n++;
                }
            }
            for (int pt = 0; pt < Corpus.PARTITIONS; pt++) {
                String diff = Corpus.difference(Corpus.expected(generation, pt, timestamps.equals("create")), read.get(pt), !timestamps.equals("any"));
                require(diff == null, "partition " + pt + ": " + diff);
            }
        }
    }
}
