package dev.quota.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.ApiSurface;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * What users of quota-opentelemetry can call: the checked-in {@code api.txt} lists it, so a change to it is a
 * reviewed change to that file, and no public signature names an internal type.
 */
class ApiSurfaceTest {

    private final ApiSurface surface = ApiSurface.of(Path.of("target/classes"), "dev.quota.opentelemetry");

    @Test
    void publicSignatures_nameNoInternalType() {
        assertThat(surface.internalTypesInApi()).isEmpty();
    }

    @Test
    void publicApi_isTheOneCheckedIn() {
        surface.assertMatches(Path.of("src/test/resources/api.txt"));
    }
}
