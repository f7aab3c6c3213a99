package io.karst.interop;

import static io.karst.interop.Main.require;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * KIP-714 client telemetry: with a client-metrics subscription for producer metrics, a producer
 * with enable.metrics.push=true gets its subscription, pushes its metrics, and they appear on the
 * broker's Prometheus endpoint (INTEROP_METRICS_URL) labelled with the producer's client instance
 * id. Kafka serves telemetry only with a receiver plugin, so the suite runs against Karst.
 */
final class TelemetrySuite {
    private final String bootstrap;
    private final String metricsUrl;
    private final Main.Checks checks;
    private final String suffix = UUID.randomUUID().toString().substring(0, 8);

    TelemetrySuite(String bootstrap, String metricsUrl, Main.Checks checks) {
        this.bootstrap = bootstrap;
        this.metricsUrl = metricsUrl;
        this.checks = checks;
    }

    void run() {
        checks.check("telemetry_producer_push_exported", this::producerPushExported);
    }

    private void producerPushExported() throws Exception {
        String topic = "interop-java-telemetry-" + suffix;
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(ap)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            ConfigResource sub = new ConfigResource(ConfigResource.Type.CLIENT_METRICS, "interop-java-telemetry-" + suffix);
            admin.incrementalAlterConfigs(Map.of(sub, List.of(
                new AlterConfigOp(new ConfigEntry("metrics", "org.apache.kafka.producer."), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("interval.ms", "1000"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("match", "client_id=interop-telemetry-" + suffix), AlterConfigOp.OpType.SET))))
                .all().get(30, TimeUnit.SECONDS);
        }
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.CLIENT_ID_CONFIG, "interop-telemetry-" + suffix);
        pp.put(ProducerConfig.ENABLE_METRICS_PUSH_CONFIG, "true");
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
            Uuid instance = producer.clientInstanceId(Duration.ofSeconds(30));
            require(instance != null && !instance.equals(Uuid.ZERO_UUID), "no client instance id");
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            String label = "client_instance_id=\"" + instance + "\"";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            String lastMatch = null;
            while (System.nanoTime() < deadline) {
                producer.send(new ProducerRecord<>(topic, "k", "v")).get(30, TimeUnit.SECONDS);
                String body = http.send(HttpRequest.newBuilder(URI.create(metricsUrl)).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
                for (String line : body.split("\n")) {
                    if (line.startsWith("org_apache_kafka_producer_") && line.contains(label)) lastMatch = line;
                }
                if (lastMatch != null) {
                    System.out.println("     exported: " + lastMatch);
                    return;
                }
                Thread.sleep(500); // the client pushes on its own schedule (interval.ms=1000 with jitter)
            }
            throw new AssertionError("no org_apache_kafka_producer_* series with " + label + " on " + metricsUrl);
        }
    }
}
