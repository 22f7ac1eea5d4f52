package dev.quota.jaxrs.internal;

/**
 * A minimal streaming JSON writer for the admin API's nested documents, strings escaped per
 * RFC 8259 (controls, U+2028 and U+2029 as {@code \\uXXXX}). The caller keeps the nesting right;
 * commas are placed here. No JSON library at run time.
 */
public final class JsonWriter {

    private final StringBuilder out = new StringBuilder(512);
    /** Whether the value about to be written is the first in its object or array. */
    private boolean first = true;

    public JsonWriter beginObject() {
        separate();
        out.append('{');
        first = true;
        return this;
    }

    public JsonWriter endObject() {
        out.append('}');
        first = false;
        return this;
    }

    public JsonWriter beginArray() {
        separate();
        out.append('[');
        first = true;
        return this;
    }

    public JsonWriter endArray() {
        out.append(']');
        first = false;
        return this;
    }

    /** The name of the next member; the value follows with another call. */
    public JsonWriter name(String name) {
        separate();
        quote(name);
        out.append(':');
        first = true; // the value after a name takes no comma
        return this;
    }

    public JsonWriter value(String value) {
        separate();
        quote(value);
        return this;
    }

    public JsonWriter value(long value) {
        separate();
        out.append(value);
        return this;
    }

    public JsonWriter value(boolean value) {
        separate();
        out.append(value);
        return this;
    }

    /** A finite number as Java prints it ({@code 1.5}); non-finite numbers are not valid JSON: null. */
    public JsonWriter value(double value) {
        separate();
        out.append(Double.isFinite(value) ? Double.toString(value) : "null");
        return this;
    }

    public JsonWriter nullValue() {
        separate();
        out.append("null");
        return this;
    }

    public JsonWriter member(String name, String value) {
        return name(name).value(value);
    }

    public JsonWriter member(String name, long value) {
        return name(name).value(value);
    }

    @Override
    public String toString() {
        return out.toString();
    }

    private void separate() {
        if (!first) {
            out.append(',');
        }
        first = false;
    }

    private void quote(String value) {
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c == '\t') {
                out.append("\\t");
            } else if (c < 0x20 || c == 0x7F || c == '\u2028' || c == '\u2029') {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }
}
