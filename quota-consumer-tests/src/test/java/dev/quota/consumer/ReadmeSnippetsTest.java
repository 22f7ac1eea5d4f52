package dev.quota.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The README's "Use it in your service" and docs/runtimes.md are the single source of truth: every
 * consumer project contains their snippets verbatim and takes the library in no other way.
 */
class ReadmeSnippetsTest {

    /** Each snippet of "Use it in your service", and the file of a consumer project that must contain it. */
    private static final Map<String, String> FILES = Map.of(
            "maven", "pom.xml",
            "plans", "plans.yaml",
            "java", "src/main/java/example/Main.java",
            "resource", "src/main/java/example/ExportResource.java",
            "amount", "src/main/java/example/TransferResource.java",
            "import", "src/main/java/example/ImportResource.java",
            "statement", "src/main/java/example/StatementResource.java");

    private static final String RESOURCES = "src/main/resources/";
    private static final Map<String, String> CDI_LITE = Map.of(
            "cdi-lite-maven", "pom.xml",
            "plans", "plans.yaml",
            "resource", "src/main/java/example/ExportResource.java",
            "amount", "src/main/java/example/TransferResource.java",
            "cdi-import", "src/main/java/example/ImportResource.java",
            "cdi-statement", "src/main/java/example/StatementResource.java");

    /** A WAR on a Jakarta EE server: the snippets of docs/runtimes.md's "Jakarta EE server", and their files. */
    private static final Map<String, String> EE_WAR = Map.of(
            "ee-maven", "pom.xml",
            "ee-application", "src/main/java/example/Api.java",
            "plans", RESOURCES + "plans.yaml",
            "resource", "src/main/java/example/ExportResource.java",
            "amount", "src/main/java/example/TransferResource.java",
            "cdi-import", "src/main/java/example/ImportResource.java",
            "cdi-statement", "src/main/java/example/StatementResource.java");

    /**
     * The Quarkus, Helidon and Jakarta EE server projects: each snippet of the README they are
     * built from, and its file.
     */
    private static final Map<String, Map<String, String>> RUNTIME_PROJECTS = Map.of(
            "payara-micro-6", EE_WAR,
            "wildfly-38", EE_WAR,
            "open-liberty", EE_WAR,
            "quarkus-rest", Map.of(
                    "maven", "pom.xml",
                    "plans", "plans.yaml",
                    "java", "src/main/java/example/QuotaWiring.java",
                    "quarkus-provider", "src/main/java/example/QuotaWiring.java",
                    "resource", "src/main/java/example/ExportResource.java",
                    "amount", "src/main/java/example/TransferResource.java",
                    "import", "src/main/java/example/ImportResource.java",
                    "statement", "src/main/java/example/StatementResource.java"),
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
    void quarkusHelidonAndServerProject_containsEachReadmeSnippetItIsBuiltFrom(String project) {
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

    /**
     * What broke: the README's Jakarta EE server snippet named {@code org.slf4j:slf4j-jdk14} without
     * a version, which the BOM did not manage, so a WAR built from it failed ("version ... is
     * missing"). Every dependency a code block of the README or docs/runtimes.md names without a
     * version is one the BOM manages.
     */
    @Test
    void readme_everyDependencyWithoutAVersion_isManagedByTheBom() throws Exception {
        String readme = Readme.text();
        Matcher dependency = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL).matcher(readme);
        List<String> unversioned = new ArrayList<>();
        while (dependency.find()) {
            String body = dependency.group(1);
            if (!body.contains("<version>")) {
                unversioned.add(tag(body, "groupId") + ":" + tag(body, "artifactId"));
            }
        }
        Document bom = parse(Checkout.root().resolve("quota-bom").resolve("pom.xml"));
        List<String> managed = new ArrayList<>();
        NodeList dependencies = bom.getElementsByTagName("dependency");
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element element = (Element) dependencies.item(i);
            managed.add(child(element, "groupId") + ":" + child(element, "artifactId"));
        }

        assertThat(unversioned).contains("dev.quota:quota-cdi", "org.slf4j:slf4j-jdk14");
        assertThat(managed).containsAll(unversioned);
    }

    private static String tag(String xml, String name) {
        Matcher matcher = Pattern.compile("<" + name + ">\\s*([^<]+?)\\s*</" + name + ">").matcher(xml);
        return matcher.find() ? matcher.group(1) : "(no " + name + ")";
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
