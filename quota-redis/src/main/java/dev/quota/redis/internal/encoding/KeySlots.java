package dev.quota.redis.internal.encoding;

import java.nio.charset.StandardCharsets;

/**
 * Redis Cluster hash slots: CRC16 (XMODEM) of the key's hash tag (the part between the first
 * <code>{</code> and the next <code>}</code>, when not empty) or of the whole key, modulo 16384. Keys of one
 * slot can be changed by one script.
 */
public final class KeySlots {

    static final int SLOTS = 16_384;

    private KeySlots() {
    }

    public static int slot(String key) {
        int open = key.indexOf('{');
        if (open >= 0) {
            int close = key.indexOf('}', open + 1);
            if (close > open + 1) {
                return crc16(key.substring(open + 1, close).getBytes(StandardCharsets.UTF_8)) % SLOTS;
            }
        }
        return crc16(key.getBytes(StandardCharsets.UTF_8)) % SLOTS;
    }

    static int crc16(byte[] bytes) {
        int crc = 0;
        for (byte b : bytes) {
            crc ^= (b & 0xff) << 8;
            for (int i = 0; i < 8; i++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
        }
        return crc & 0xffff;
    }
}
