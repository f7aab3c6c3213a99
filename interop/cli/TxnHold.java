// TxnHold BOOTSTRAP TRANSACTIONAL_ID TOPIC COUNT: run by run.sh as a single-file Java program
// (java -cp 'interop/kafka/lib/*' TxnHold.java ...). Opens a transaction, writes COUNT records to
// partition 0 of TOPIC, prints "open" and keeps the transaction open until stdin closes; then
// commits and prints "committed". It gives kafka-transactions an Ongoing transaction to show.
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

public class TxnHold {
    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", args[0]);
        p.put("transactional.id", args[1]);
        p.put("transaction.timeout.ms", "120000");
        p.put("max.block.ms", "30000");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        try (var producer = new KafkaProducer<String, String>(p)) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < Integer.parseInt(args[3]); i++) {
                producer.send(new ProducerRecord<>(args[2], 0, null, "held-" + i)).get();
            }
            System.out.println("open");
            System.out.flush();
            while (System.in.read() != -1) {
                // wait for the end of input
            }
            producer.commitTransaction();
            System.out.println("committed");
        }
    }
}
