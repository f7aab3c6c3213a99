package io.karst.interop;

import static io.karst.interop.Main.require;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Transactions (INTEROP_TXN=0 skips them): a KafkaProducer with transactional.id commits and
 * aborts transactions over two partitions, and a read_committed KafkaConsumer sees exactly the
 * committed records (read_uncommitted sees both); a consume-transform-produce loop hands the
 * input offsets to each transaction with sendOffsetsToTransaction, so the output holds every
 * input record once and the group's committed offsets cover the input; a second producer with
 * the same transactional.id fences the first (ProducerFencedException), whose open transaction
 * is aborted.
 *
 * Reads stop at a sentinel record written outside any transaction after the transactions: a
 * read_committed consumer reaches it only once everything before it is decided.
 */
final class TransactionSuite {
    private static final int INPUT = 20;
    private final String bootstrap;
    private final Main.Checks checks;
    private final String suffix = UUID.randomUUID().toString().substring(0, 8);
    private final String topic = "interop-java-txn-" + suffix;
    private final String in = "interop-java-txn-in-" + suffix;
    private final String out = "interop-java-txn-out-" + suffix;
    private final String fenced = "interop-java-txn-fenced-" + suffix;
    private final String group = "interop-java-txn-" + suffix;

    TransactionSuite(String bootstrap, Main.Checks checks) {
        this.bootstrap = bootstrap;
        this.checks = checks;
    }

    void run() {
        if (!checks.check("txn_setup", this::setup)) return;
        checks.check("txn_commit_abort_read_committed", this::commitAbort);
        checks.check("txn_send_offsets_consume_transform_produce", this::consumeTransformProduce);
        checks.check("txn_producer_fenced", this::fencing);
    }

    private Properties common() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return p;
    }

    private KafkaProducer<String, String> producer(String transactionalId) {
        Properties p = common();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        if (transactionalId != null) {
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
            p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "30000");
        }
        return new KafkaProducer<>(p);
    }

    private void setup() throws Exception {
        try (Admin admin = Admin.create(common())) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1), new NewTopic(in, 2, (short) 1),
                    new NewTopic(out, 2, (short) 1), new NewTopic(fenced, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        try (var p = producer(null)) {
            for (int i = 0; i < INPUT; i++) p.send(new ProducerRecord<>(in, i % 2, null, "in-" + i)).get(30, TimeUnit.SECONDS);
        }
    }

    /** Writes "end-TAG" to every partition outside any transaction. */
    private void sentinels(String t, int partitions, String tag) throws Exception {
        try (var p = producer(null)) {
            for (int part = 0; part < partitions; part++) p.send(new ProducerRecord<>(t, part, null, "end-" + tag)).get(30, TimeUnit.SECONDS);
        }
    }

    /** Reads t from the beginning until every partition's "end-TAG"; returns the values before them. */
    private List<String> readToSentinels(String t, int partitions, String tag, String isolation) {
        Properties p = common();
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.CHECK_CRCS_CONFIG, "true");
        List<String> got = new ArrayList<>();
        Set<Integer> done = new HashSet<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try (var c = new KafkaConsumer<String, String>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int part = 0; part < partitions; part++) tps.add(new TopicPartition(t, part));
            c.assign(tps);
            c.seekToBeginning(tps);
            while (done.size() < partitions) {
                require(System.nanoTime() < deadline, isolation + " read of " + t + " timed out with " + got + ", sentinels " + done);
                for (var r : c.poll(Duration.ofMillis(500))) {
                    if (done.contains(r.partition())) continue;
                    if (r.value().equals("end-" + tag)) done.add(r.partition());
                    else got.add(r.value());
                }
            }
        }
        return got;
    }

    private static void requireExactly(String what, List<String> got, List<String> want) {
        Map<String, Integer> count = new HashMap<>();
        for (String v : got) count.merge(v, 1, Integer::sum);
        List<String> missing = new ArrayList<>(), dup = new ArrayList<>();
        for (String v : want) {
            Integer n = count.remove(v);
            if (n == null) missing.add(v);
            else if (n > 1) dup.add(v);
        }
        require(missing.isEmpty() && dup.isEmpty() && count.isEmpty(),
                what + ": missing " + missing + ", more than once " + dup + ", unexpected " + count.keySet());
    }

    private static List<String> tagged(String tag, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(tag + "-" + i);
        return out;
    }

    private void commitAbort() throws Exception {
        List<String> committed = new ArrayList<>(), all = new ArrayList<>();
        try (var p = producer("interop-java-txn-" + suffix)) {
            p.initTransactions();
            boolean[] rounds = {true, false, true, false};
            for (int round = 0; round < rounds.length; round++) {
                List<String> values = tagged((rounds[round] ? "committed" : "aborted") + round, 6);
                p.beginTransaction();
                for (int i = 0; i < values.size(); i++) p.send(new ProducerRecord<>(topic, i % 2, null, values.get(i)));
                if (rounds[round]) {
                    p.commitTransaction();
                    committed.addAll(values);
                } else {
                    p.flush(); // the aborted records reach the log before the abort marker
                    p.abortTransaction();
                }
                all.addAll(values);
            }
        }
        sentinels(topic, 2, "a");
        requireExactly("read_committed", readToSentinels(topic, 2, "a", "read_committed"), committed);
        requireExactly("read_uncommitted", readToSentinels(topic, 2, "a", "read_uncommitted"), all);
    }

    private void consumeTransformProduce() throws Exception {
        Properties cp = common();
        cp.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        cp.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "7");
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        int transformed = 0, transactions = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        try (var c = new KafkaConsumer<String, String>(cp); var p = producer("interop-java-txn-ctp-" + suffix)) {
            p.initTransactions();
            c.subscribe(List.of(in));
            while (transformed < INPUT) {
                require(System.nanoTime() < deadline, "timed out after " + transformed + " of " + INPUT + " records");
                var records = c.poll(Duration.ofMillis(500));
                if (records.isEmpty()) continue;
                p.beginTransaction();
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (var r : records) {
                    p.send(new ProducerRecord<>(out, r.partition(), null, "out-" + r.value().substring(3)));
                    offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                }
                p.sendOffsetsToTransaction(offsets, c.groupMetadata());
                p.commitTransaction();
                transformed += records.count();
                transactions++;
            }
        }
        try (Admin admin = Admin.create(common())) {
            Map<TopicPartition, OffsetAndMetadata> offsets =
                    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            for (int part = 0; part < 2; part++) {
                OffsetAndMetadata om = offsets.get(new TopicPartition(in, part));
                require(om != null && om.offset() == INPUT / 2, "partition " + part + " committed " + om);
            }
        }
        sentinels(out, 2, "o");
        List<String> want = new ArrayList<>();
        for (int i = 0; i < INPUT; i++) want.add("out-" + i);
        requireExactly("output read_committed (" + transactions + " transactions)", readToSentinels(out, 2, "o", "read_committed"), want);
    }

    private static boolean isFenced(Throwable t) {
        for (; t != null; t = t.getCause()) {
            if (t instanceof ProducerFencedException || t instanceof InvalidProducerEpochException) return true;
        }
        return false;
    }

    private void fencing() throws Exception {
        String id = "interop-java-txn-fenced-" + suffix;
        List<String> want = new ArrayList<>();
        try (var zombie = producer(id)) {
            zombie.initTransactions();
            zombie.beginTransaction();
            zombie.send(new ProducerRecord<>(fenced, 0, null, "zombie-open-0")).get(30, TimeUnit.SECONDS);
            try (var successor = producer(id)) {
                // initTransactions bumps the epoch and aborts the zombie's open transaction.
                successor.initTransactions();
                Throwable refused = null;
                try {
                    zombie.send(new ProducerRecord<>(fenced, 0, null, "zombie-late")).get(30, TimeUnit.SECONDS);
                    zombie.commitTransaction();
                } catch (ExecutionException | RuntimeException e) {
                    refused = e;
                }
                require(refused != null, "the fenced producer wrote and committed");
                require(isFenced(refused), "zombie refused with " + refused + "; want ProducerFencedException");
                successor.beginTransaction();
                for (String v : tagged("successor", 3)) successor.send(new ProducerRecord<>(fenced, 0, null, v));
                successor.commitTransaction();
                want.addAll(tagged("successor", 3));
            }
        }
        sentinels(fenced, 1, "f");
        requireExactly("read_committed", readToSentinels(fenced, 1, "f", "read_committed"), want);
    }
}
