package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The admin API ({@code dev.quota.jaxrs.admin}) uses the filters' package, never the reverse: no
 * class of {@code dev.quota.jaxrs} or {@code dev.quota.jaxrs.internal} names an admin class, so the
 * filters build, load and change without it (the quota filter finds the admin token check through
 * {@code ResourceChecks}).
 */
class PackageDependencyTest {

    private static final Path CLASSES = Path.of("target/classes/dev/quota/jaxrs");
    private static final String ADMIN = "dev/quota/jaxrs/admin/";

    @Test
    void filterPackages_nameNoAdminClass() throws IOException {
        List<Path> filterSide;
        try (Stream<Path> files = Files.walk(CLASSES)) {
            filterSide = files.filter(p -> p.toString().endsWith(".class"))
                    .filter(p -> !CLASSES.relativize(p).startsWith("admin"))
                    .toList();
        }
        assertThat(filterSide).as("compiled classes of dev.quota.jaxrs").hasSizeGreaterThan(20);
        for (Path file : filterSide) {
            // a class a class file refers to is in its constant pool by its internal name
            String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
            assertThat(bytes).as("%s", CLASSES.relativize(file)).doesNotContain(ADMIN);
        }
    }

    @Test
    void adminClasses_areWhereThisTestLooksForThem() {
        assertThat(CLASSES.resolve("admin/QuotaAdminResource.class")).exists();
    }
}
