package io.karst.interop.generations;

import static io.karst.interop.generations.Checks.require;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Produce with acks=all, then a classic consumer group: a first member reads every record and
 * commits a different offset (with metadata) per partition; a fresh member of the same group,
 * with auto.offset.reset=none, must start exactly at those offsets and read the commits back.
 */
final class GroupRoundTrip {
    private static final int RECORDS_PER_PARTITION = 10;
    private static final Duration POLL_DEADLINE = Duration.ofSeconds(30);

    private final Clients clients;
    private final String topic;
    private final String group;
    /** "partition/offset" -> "key=value", as the producer was acknowledged. */
    private final Map<String, String> produced = new HashMap<>();
    private final Map<TopicPartition, OffsetAndMetadata> commits = new HashMap<>();

    GroupRoundTrip(Clients clients, String topic, String group) {
        this.clients = clients;
        this.topic = topic;
        this.group = group;
        for (int p = 0; p < TopicAdmin.PARTITIONS; p++) {
            commits.put(new TopicPartition(topic, p), new OffsetAndMetadata(4 + 2 * p, "generations-" + p));
        }
    }

    void produce() throws Exception {
        KafkaProducer<String, String> producer = clients.producer();
        try {
            List<ProducerRecord<String, String>> records = new ArrayList<>();
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < RECORDS_PER_PARTITION * TopicAdmin.PARTITIONS; i++) {
                ProducerRecord<String, String> record = new ProducerRecord<>(topic, i % TopicAdmin.PARTITIONS, "k" + i, "v" + i);
                records.add(record);
                acks.add(producer.send(record));
            }
            long[] next = new long[TopicAdmin.PARTITIONS];
            for (int i = 0; i < records.size(); i++) {
                RecordMetadata ack = acks.get(i).get(Clients.CALL_TIMEOUT.getSeconds(), TimeUnit.SECONDS);
                require(ack.offset() == next[ack.partition()], "record " + i + " acknowledged at " + ack.partition() + "/" + ack.offset());
                next[ack.partition()]++;
                produced.put(ack.partition() + "/" + ack.offset(), records.get(i).key() + "=" + records.get(i).value());
            }
        } finally {
            producer.close(Clients.CLOSE_TIMEOUT);
        }
    }

    void consumeAndCommit() {
        asMember("earliest", consumer -> {
            Set<String> expected = produced.keySet();
            require(readUntil(consumer, expected).equals(expected), "did not read every produced record");
            require(consumer.assignment().equals(commits.keySet()), "assignment " + consumer.assignment());
            consumer.commitSync(commits, Clients.CALL_TIMEOUT);
        });
    }

    void resumeFromCommits() {
        asMember("none", consumer -> {
            Set<String> expected = new HashSet<>();
            commits.forEach((tp, committed) -> {
                for (long o = committed.offset(); o < RECORDS_PER_PARTITION; o++) expected.add(tp.partition() + "/" + o);
            });
            Set<String> read = readUntil(consumer, expected);
            require(read.equals(expected), "resumed at " + read + ", expected " + expected);
            Map<TopicPartition, OffsetAndMetadata> fetched = consumer.committed(commits.keySet(), Clients.CALL_TIMEOUT);
            require(commits.equals(fetched), "committed() " + fetched + ", expected " + commits);
        });
    }

    /** Runs body as a new member of the group, subscribed to the topic; it leaves the group after. */
    private void asMember(String autoOffsetReset, Consumer<KafkaConsumer<String, String>> body) {
        KafkaConsumer<String, String> consumer = clients.groupConsumer(group, autoOffsetReset);
        try {
            consumer.subscribe(List.of(topic));
            body.accept(consumer);
        } finally {
            consumer.close(Clients.CLOSE_TIMEOUT);
        }
    }

    /**
     * Polls until every expected record arrived (failing on any record that was not expected,
     * or whose key and value differ from what was produced there) or POLL_DEADLINE passed.
     */
    private Set<String> readUntil(KafkaConsumer<String, String> consumer, Set<String> expected) {
        Set<String> read = new HashSet<>();
        long deadline = System.nanoTime() + POLL_DEADLINE.toNanos();
        while (!read.containsAll(expected)) {
            require(System.nanoTime() < deadline, "read " + read.size() + " of " + expected.size() + " records in " + POLL_DEADLINE);
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                String at = r.partition() + "/" + r.offset();
                require(expected.contains(at), "unexpected record at " + at);
                require((r.key() + "=" + r.value()).equals(produced.get(at)), "record at " + at + " is " + r.key() + "=" + r.value());
                read.add(at);
            }
        }
        return read;
    }
}
