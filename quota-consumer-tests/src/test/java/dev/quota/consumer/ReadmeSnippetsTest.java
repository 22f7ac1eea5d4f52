package dev.quota.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The README's "Use it in your service" is the single source of truth: every consumer project
 * contains its snippets verbatim and takes the library in no other way.
 */
class ReadmeSnippetsTest {

    /** Each snippet the README marks, and the file of a consumer project that must contain it. */
    private static final Map<String, String> FILES = Map.of(
            "maven", "pom.xml",
            "plans", "plans.yaml",
            "java", "src/main/java/example/Main.java",
            "resource", "src/main/java/example/ExportResource.java",
            "amount", "src/main/java/example/TransferResource.java");

    private static final String RESOURCES = "src/main/resources/";
    private static final Map<String, String> CDI_LITE = Map.of(
            "cdi-lite-maven", "pom.xml",
            "plans", "plans.yaml",
            "resource", "src/main/java/example/ExportResource.java",
            "amount", "src/main/java/example/TransferResource.java");

    /** The Quarkus and Helidon projects: each snippet of the README they are built from, and its file. */
    private static final Map<String, Map<String, String>> RUNTIME_PROJECTS = Map.of(
            "quarkus-rest", Map.of(
                    "maven", "pom.xml",
                    "plans", "plans.yaml",
                    "java", "src/main/java/example/QuotaWiring.java",
                    "quarkus-provider", "src/main/java/example/QuotaWiring.java",
                    "resource", "src/main/java/example/ExportResource.java",
                    "amount", "src/main/java/example/TransferResource.java"),
            "quarkus-rest-cdi", with(CDI_LITE, "cdi-lite-properties", RESOURCES + "application.properties"),
            "quarkus-resteasy-cdi", with(CDI_LITE, "cdi-lite-properties", RESOURCES + "application.properties"),
            "helidon-mp-cdi", with(CDI_LITE, "cdi-lite-properties", RESOURCES + "META-INF/microprofile-config.properties"));

    static List<String> projects() {
        return ConsumerProject.names();
    }

    static List<String> runtimeProjects() {
        return RUNTIME_PROJECTS.keySet().stream().sorted().toList();
    }

    @Test
    void readme_marksEverySnippetAConsumerProjectIsBuiltFrom() {
        java.util.Set<String> used = new java.util.TreeSet<>(FILES.keySet());
        RUNTIME_PROJECTS.values().forEach(files -> used.addAll(files.keySet()));
        assertThat(Readme.snippets()).containsOnlyKeys(used);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("runtimeProjects")
    void quarkusAndHelidonProject_containsEachReadmeSnippetItIsBuiltFrom(String project) {
        Path dir = Checkout.projects().resolve(project);
        for (Map.Entry<String, String> snippet : RUNTIME_PROJECTS.get(project).entrySet()) {
            List<String> lines = Readme.snippets().get(snippet.getKey());
            assertThat(lines).as("README snippet %s", snippet.getKey()).isNotNull();
            Path file = dir.resolve(snippet.getValue());
            assertThat(Readme.missingLines(lines, file))
                    .as("lines of the README's %s snippet missing from %s, or out of order", snippet.getKey(), file)
                    .isEmpty();
        }
    }

    private static Map<String, String> with(Map<String, String> files, String snippet, String file) {
        Map<String, String> all = new java.util.HashMap<>(files);
        all.put(snippet, file);
        return Map.copyOf(all);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("projects")
    void consumerProject_containsEveryReadmeSnippetVerbatim(String project) {
        Path dir = Checkout.projects().resolve(project);
        for (Map.Entry<String, List<String>> snippet : Readme.snippets().entrySet()) {
            if (!FILES.containsKey(snippet.getKey())) {
                continue; // a snippet of the Quarkus and Helidon sections
            }
            Path file = dir.resolve(FILES.get(snippet.getKey()));
            assertThat(Readme.missingLines(snippet.getValue(), file))
                    .as("lines of the README's %s snippet missing from %s, or out of order", snippet.getKey(), file)
                    .isEmpty();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("projects")
    void consumerProject_takesTheLibraryOnlyThroughTheBomAndTheTwoModules(String project) throws Exception {
        Document pom = parse(Checkout.projects().resolve(project).resolve("pom.xml"));

        assertThat(pom.getElementsByTagName("exclusion").getLength()).as("exclusions").isZero();
        List<String> managed = new ArrayList<>();
        List<String> declared = new ArrayList<>();
        NodeList dependencies = pom.getElementsByTagName("dependency");
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element dependency = (Element) dependencies.item(i);
            String coordinates = child(dependency, "groupId") + ":" + child(dependency, "artifactId")
                    + (child(dependency, "version") == null ? "" : ":" + child(dependency, "version"));
            boolean inManagement = "dependencies".equals(dependency.getParentNode().getNodeName())
                    && "dependencyManagement".equals(dependency.getParentNode().getParentNode().getNodeName());
            (inManagement ? managed : declared).add(coordinates);
        }
        assertThat(managed).filteredOn(c -> c.startsWith("dev.quota:"))
                .containsExactly("dev.quota:quota-bom:" + Checkout.version());
        assertThat(declared).filteredOn(c -> c.startsWith("dev.quota:"))
                .containsExactly("dev.quota:quota-jaxrs", "dev.quota:quota-redis");
        assertThat(managed).as("Bucket4j and Redisson come from the BOM")
                .noneMatch(c -> c.startsWith("com.bucket4j:") || c.startsWith("org.redisson:"));
        assertThat(declared).as("Bucket4j and Redisson come from the BOM")
                .noneMatch(c -> c.startsWith("com.bucket4j:") || c.startsWith("org.redisson:"));
    }

    @Test
    void parentPom_buildsWithTheBucket4jAndRedissonVersionsTheBomPublishes() throws Exception {
        Document parent = parse(Checkout.root().resolve("pom.xml"));
        Document bom = parse(Checkout.root().resolve("quota-bom").resolve("pom.xml"));

        for (String property : List.of("bucket4j.version", "redisson.version")) {
            assertThat(property(parent, property)).as(property).isNotNull().isEqualTo(property(bom, property));
        }
    }

    private static Document parse(Path file) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(file.toFile());
    }

    private static String property(Document pom, String name) {
        NodeList properties = pom.getElementsByTagName("properties");
        return properties.getLength() == 0 ? null : child((Element) properties.item(0), name);
    }

    /** The text of {@code element}'s direct child named {@code name}, or null. */
    private static String child(Element element, String name) {
        for (Node node = element.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element child && child.getTagName().equals(name)) {
                return child.getTextContent().trim();
            }
        }
        return null;
    }
}
