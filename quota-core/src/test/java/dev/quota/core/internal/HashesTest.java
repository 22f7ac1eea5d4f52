package dev.quota.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

class HashesTest {

    @Test
    void keyPart_isTheFirst128BitsOfSha256InBase64Url_soKeysWrittenBeforeStillMatch() {
        // pinned: bucket keys already in Redis were written with these parts
        assertThat(Hashes.keyPart("ACCOUNT\u0000alice")).isEqualTo("KZvfLzSRJF8u9Nn_K2-VGA");
        assertThat(Hashes.keyPart("ACCOUNT", "alice")).isEqualTo("KZvfLzSRJF8u9Nn_K2-VGA");
        assertThat(Hashes.keyPart("x")).isEqualTo("LXEWQrcmsEQBYnyp-6wy9Q");
    }

    @Test
    void keyPart_matchesTheJdksEncoding_forAnyIdentityIncludingNonAscii() throws NoSuchAlgorithmException {
        Random random = new Random(19);
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (int i = 0; i < 2_000; i++) {
            StringBuilder id = new StringBuilder();
            int length = 1 + random.nextInt(40);
            for (int c = 0; c < length; c++) {
                id.append((char) (i % 2 == 0 ? 32 + random.nextInt(95) : 1 + random.nextInt(0xd7ff)));
            }
            String identity = "PRINCIPAL\u0000" + id;
            String expected = b64.encodeToString(Arrays.copyOf(
                    sha.digest(identity.getBytes(StandardCharsets.UTF_8)), 16));
            assertThat(Hashes.keyPart(identity)).isEqualTo(expected);
            assertThat(Hashes.keyPart("PRINCIPAL", id.toString())).isEqualTo(expected);
        }
    }

    @Test
    void keyWithPart_isTheKeyPartBetweenHeadAndTail_forAsciiNonAsciiAndLongIdentities() {
        assertThat(Hashes.keyWithPart("quota:{c.", "ACCOUNT", "alice", "}:p"))
                .isEqualTo("quota:{c.KZvfLzSRJF8u9Nn_K2-VGA}:p");
        String longId = "x".repeat(300);
        for (String id : new String[] {"bob", "j\u00fcrgen", "\u4e2d\u6587", longId}) {
            assertThat(Hashes.keyWithPart("q:{c.", "PRINCIPAL", id, "}:p"))
                    .isEqualTo("q:{c." + Hashes.keyPart("PRINCIPAL\u0000" + id) + "}:p");
        }
        // a head past the thread's buffer is built all the same
        String head = "h".repeat(120);
        assertThat(Hashes.keyWithPart(head, "ACCOUNT", "alice", "}:p")).isEqualTo(head + "KZvfLzSRJF8u9Nn_K2-VGA}:p");
    }

    @Test
    void sha256Hex_isSixtyFourLowerCaseHexCharacters() {
        assertThat(Hashes.sha256Hex("abc"))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    @Test
    void sha256Hex_matchesTheJdksHex_forAsciiNonAsciiLongAndEmptyKeys() throws NoSuchAlgorithmException {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        Random random = new Random(23);
        String[] fixed = {"", "k", "j\u00fcrgen", "\u4e2d\u6587", "x".repeat(128), "y".repeat(129), "z".repeat(1000)};
        for (int i = 0; i < 1_000 + fixed.length; i++) {
            String key;
            if (i < fixed.length) {
                key = fixed[i];
            } else {
                StringBuilder sb = new StringBuilder();
                int length = random.nextInt(200);
                for (int c = 0; c < length; c++) {
                    sb.append((char) (i % 2 == 0 ? 32 + random.nextInt(95) : 1 + random.nextInt(0xd7ff)));
                }
                key = sb.toString();
            }
            String expected = HexFormat.of().formatHex(sha.digest(key.getBytes(StandardCharsets.UTF_8)));
            assertThat(Hashes.sha256Hex(key)).as("key of %d characters", key.length()).isEqualTo(expected);
        }
    }
}
