package dev.quota.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.quota.core.QuotaConfig;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Property: whatever the bytes, the loader returns a config or throws InvalidConfigException with
 * at least one error; never another exception. Inputs are the valid file with seeded mutations,
 * so a failure reproduces exactly.
 */
class ConfigFuzzTest {

    private static final long SEED = 20_240_601L;
    private static final int ITERATIONS = 5_000;

    @Test
    void parse_mutatedValidFile_returnsConfigOrInvalidConfigException() throws IOException {
        String valid = Files.readString(QuotaConfigLoaderTest.resource("valid.yaml"));
        var random = new Random(SEED);
        int loaded = 0;
        int refused = 0;
        for (int i = 0; i < ITERATIONS; i++) {
            byte[] input = mutate(valid.getBytes(StandardCharsets.UTF_8), random);
            try {
                // Half through the byte stream (invalid UTF-8 included), half as text.
                QuotaConfig config = i % 2 == 0
                        ? QuotaConfigLoader.parse(new ByteArrayInputStream(input), "fuzz-" + i)
                        : QuotaConfigLoader.parse(new String(input, StandardCharsets.UTF_8), "fuzz-" + i);
                assertThat(config.plans()).isNotEmpty();
                loaded++;
            } catch (InvalidConfigException e) {
                assertThat(e.errors()).isNotEmpty();
                refused++;
            } catch (RuntimeException | StackOverflowError e) {
                fail("input " + i + " (seed " + SEED + ") threw " + e + " for:\n"
                        + new String(input, StandardCharsets.UTF_8), e);
            }
        }
        System.out.printf("config fuzz: %d inputs tried, %d loaded, %d refused%n", ITERATIONS, loaded, refused);
        assertThat(loaded + refused).isEqualTo(ITERATIONS);
        assertThat(refused).as("mutations that broke the file").isPositive();
        assertThat(loaded).as("mutations the file survived (e.g. in comments)").isPositive();
    }

    /** One to four edits: delete, duplicate, swap, random byte, or a YAML-significant character. */
    private static byte[] mutate(byte[] original, Random random) {
        var bytes = new java.io.ByteArrayOutputStream();
        byte[] current = original;
        int edits = 1 + random.nextInt(4);
        for (int e = 0; e < edits && current.length > 1; e++) {
            int at = random.nextInt(current.length);
            int length = 1 + random.nextInt(Math.min(16, current.length - at));
            bytes.reset();
            switch (random.nextInt(5)) {
                case 0 -> {
                    bytes.write(current, 0, at);
                    bytes.write(current, at + length, current.length - at - length);
                }
                case 1 -> {
                    bytes.write(current, 0, at + length);
                    bytes.write(current, at, current.length - at);
                }
                case 2 -> {
                    int other = random.nextInt(current.length);
                    byte[] copy = current.clone();
                    copy[at] = current[other];
                    copy[other] = current[at];
                    bytes.write(copy, 0, copy.length);
                }
                case 3 -> {
                    bytes.write(current, 0, at);
                    bytes.write(random.nextInt(256));
                    bytes.write(current, at, current.length - at);
                }
                default -> {
                    byte[] significant = ":-[]{}&*!|>'\"%@`#,?\n\t ".getBytes(StandardCharsets.UTF_8);
                    bytes.write(current, 0, at);
                    bytes.write(significant[random.nextInt(significant.length)]);
                    bytes.write(current, at + 1, current.length - at - 1);
                }
            }
            current = bytes.toByteArray();
        }
        return current;
    }
}
