import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Sends one raw ApiVersions v4 request to HOST:PORT and prints exactly what the broker answered:
 * a TSV of (api_key, name, min, max), then the supported and finalized features as comments.
 * Run with: java -cp 'lib/*' ApiVersionsDump.java HOST PORT
 */
public class ApiVersionsDump {
    public static void main(String[] args) throws Exception {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        short version = 4;
        ApiVersionsRequest request = new ApiVersionsRequest(new ApiVersionsRequestData()
                .setClientSoftwareName("karst-interop-capture").setClientSoftwareVersion("1"), version);
        RequestHeader header = new RequestHeader(ApiKeys.API_VERSIONS, version, "karst-interop", 7);
        ByteBuffer payload = request.serializeWithHeader(header);
        try (Socket socket = new Socket()) {
            socket.setSoTimeout(10_000);
            socket.connect(new InetSocketAddress(host, port), 10_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(payload.remaining());
            out.write(payload.array(), payload.arrayOffset() + payload.position(), payload.remaining());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] body = new byte[in.readInt()];
            in.readFully(body);
            ApiVersionsResponse response = (ApiVersionsResponse) AbstractResponse.parseResponse(ByteBuffer.wrap(body), header);
            ApiVersionsResponseData data = response.data();
            if (data.errorCode() != 0) throw new IllegalStateException("ApiVersions error " + data.errorCode());
            System.out.println("api_key\tname\tmin_version\tmax_version");
            for (ApiVersionsResponseData.ApiVersion v : data.apiKeys()) {
                String name = ApiKeys.hasId(v.apiKey()) ? ApiKeys.forId(v.apiKey()).name : "UNKNOWN";
                System.out.println(v.apiKey() + "\t" + name + "\t" + v.minVersion() + "\t" + v.maxVersion());
            }
            System.out.println("# throttle_time_ms=" + data.throttleTimeMs() + " finalized_features_epoch=" + data.finalizedFeaturesEpoch()
                    + " zk_migration_ready=" + data.zkMigrationReady());
            for (ApiVersionsResponseData.SupportedFeatureKey f : data.supportedFeatures())
                System.out.println("# supported_feature\t" + f.name() + "\t" + f.minVersion() + "\t" + f.maxVersion());
            for (ApiVersionsResponseData.FinalizedFeatureKey f : data.finalizedFeatures())
                System.out.println("# finalized_feature\t" + f.name() + "\t" + f.minVersionLevel() + "\t" + f.maxVersionLevel());
        }
    }

}
