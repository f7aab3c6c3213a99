package io.karst.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The share consumer ShareConsumerSuite kills: run as its own JVM (args: bootstrap, group, topic),
 * it polls until it holds records, prints "ACQUIRED" and their keys on one line, and then waits,
 * never acknowledging, until it is killed. Its records are then only given back by the broker when
 * their acquisition locks expire.
 */
public final class ShareHolder {
    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, args[1]);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "share-holder");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put("share.acknowledgement.mode", "explicit");
        KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(p);
        consumer.subscribe(List.of(args[2]));
        List<String> keys = new ArrayList<>();
        while (keys.isEmpty()) {
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) keys.add(r.key());
        }
        System.out.println("ACQUIRED " + String.join(" ", keys));
        System.out.flush();
        // Held, unacknowledged, until the suite kills this process; the consumer is not closed.
        Thread.sleep(Long.MAX_VALUE);
    }
}
