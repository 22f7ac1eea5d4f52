package dev.quota.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemoTest {

    @Test
    void get_answersFromTheTable_whileItsKeyHoldsTheSlot() {
        List<String> asked = new ArrayList<>();
        Memo<String, String> memo = new Memo<>(4, key -> {
            asked.add(key);
            return key.toUpperCase(java.util.Locale.ROOT);
        });

        assertThat(memo.get("a")).isEqualTo("A");
        assertThat(memo.get(new String("a"))).isEqualTo("A"); // an equal key, not the same object
        assertThat(asked).containsExactly("a");
    }

    @Test
    void get_aKeyOfTheSameSlot_replacesTheAnswer_andIsRightForBoth() {
        List<Integer> asked = new ArrayList<>();
        Memo<Integer, Integer> memo = new Memo<>(1, key -> {
            asked.add(key);
            return key * 10;
        });

        assertThat(memo.get(1)).isEqualTo(10);
        assertThat(memo.get(2)).isEqualTo(20);
        assertThat(memo.get(1)).isEqualTo(10);
        assertThat(asked).containsExactly(1, 2, 1);
    }

    @Test
    void get_keepsANullAnswer_too() {
        List<String> asked = new ArrayList<>();
        Memo<String, String> memo = new Memo<>(8, key -> {
            asked.add(key);
            return null;
        });

        assertThat(memo.get("not an address")).isNull();
        assertThat(memo.get("not an address")).isNull();
        assertThat(asked).hasSize(1);
    }

    @Test
    void slots_mustBeAPowerOfTwo() {
        assertThatThrownBy(() -> new Memo<String, String>(3, key -> key))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("slots must be a power of two from 1 to 65536 but was 3");
        assertThatThrownBy(() -> new Memo<String, String>(0, key -> key))
                .hasMessage("slots must be a power of two from 1 to 65536 but was 0");
    }
}
