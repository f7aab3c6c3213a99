package io.karst.interop;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/** One record as produced, compared byte for byte with what the consumer reads back. */
record ExpectedRecord(int partition, byte[] key, byte[] value, long timestamp, List<Header> headers, String label) {

    record Header(String key, byte[] value) {
        boolean sameAs(Header other) {
            return key.equals(other.key) && Arrays.equals(value, other.value);
        }
    }

    /** Returns null when equal, otherwise a description of the first difference. */
    String diff(byte[] gotKey, byte[] gotValue, long gotTimestamp, List<Header> gotHeaders) {
        if (!Arrays.equals(key, gotKey)) return label + ": key differs: want " + describe(key) + " got " + describe(gotKey);
        if (!Arrays.equals(value, gotValue)) return label + ": value differs: want " + describe(value) + " got " + describe(gotValue);
        if (timestamp != gotTimestamp) return label + ": timestamp want " + timestamp + " got " + gotTimestamp;
        if (headers.size() != gotHeaders.size()) return label + ": header count want " + headers.size() + " got " + gotHeaders.size();
        for (int i = 0; i < headers.size(); i++) {
            if (!headers.get(i).sameAs(gotHeaders.get(i)))
                return label + ": header " + i + " want " + headers.get(i).key() + "=" + describe(headers.get(i).value())
                        + " got " + gotHeaders.get(i).key() + "=" + describe(gotHeaders.get(i).value());
        }
        return null;
    }

    private static String describe(byte[] b) {
        if (b == null) return "null";
        return b.length + " bytes (hash " + Objects.hash(Arrays.hashCode(b)) + ")";
    }
}
