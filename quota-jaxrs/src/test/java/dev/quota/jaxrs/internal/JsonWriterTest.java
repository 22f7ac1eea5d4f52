package dev.quota.jaxrs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JsonWriterTest {

    @Test
    void strings_escapeQuotesBackslashesControlCharactersAndLineSeparators() {
        String json = new JsonWriter().beginObject()
                .member("a", "say \"hi\" \\ there")
                .member("b", "line\nbreak\ttab\u0001bell\u2028")
                .member("n", -3)
                .endObject().toString();

        assertThat(json).isEqualTo("{\"a\":\"say \\\"hi\\\" \\\\ there\","
                + "\"b\":\"line\\nbreak\\ttab\\u0001bell\\u2028\",\"n\":-3}");
    }

    @Test
    void problem_leavesOutAnAbsentInstance() {
        String json = ProblemResponses.problem("x", "T", 400, "d", null).endObject().toString();

        assertThat(json).isEqualTo("{\"type\":\"urn:quota:problem:x\",\"title\":\"T\",\"status\":400,\"detail\":\"d\"}");
    }
}
