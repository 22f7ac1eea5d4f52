package dev.quota.redis.internal.keystate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RecordSlabsTest {

    @Test
    void removingARecord_movesTheLastOfItsLengthIntoItsPlace_andNamesItsOwner() {
        RecordSlabs slabs = new RecordSlabs();
        int a = slabs.add(new long[] {1, 2, 3, 4}, 10);
        int b = slabs.add(new long[] {5, 6, 7, 8}, 11);
        int c = slabs.add(new long[] {9, 10, 11, 12}, 12);
        int other = slabs.add(new long[] {13, 14, 15, 16, 17}, 13);

        int moved = slabs.remove(4, a);

        assertThat(moved).as("the owner of the last 4-word record").isEqualTo(12);
        assertThat(slabs.copy(4, a, new long[4])).containsExactly(9, 10, 11, 12);
        assertThat(slabs.copy(4, b, new long[4])).containsExactly(5, 6, 7, 8);
        assertThat(slabs.copy(5, other, new long[5])).containsExactly(13, 14, 15, 16, 17);
        assertThat(slabs.remove(4, b)).as("the last one: nothing moves").isEqualTo(-1);
        assertThat(slabs.size()).isEqualTo(2);
        assertThat(c).isEqualTo(2);
    }

    @Test
    void manyChunks_addedAndRemovedInAnyOrder_keepEveryRecordExact() {
        RecordSlabs slabs = new RecordSlabs();
        // owner -> {length, place}, as the table keeps them
        Map<Integer, int[]> where = new HashMap<>();
        List<Integer> owners = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(11);
        int next = 0;
        for (int op = 0; op < 50_000; op++) {
            if (owners.isEmpty() || random.nextInt(3) != 0) {
                int owner = next++;
                long[] rec = recordOf(owner);
                where.put(owner, new int[] {rec.length, slabs.add(rec, owner)});
                owners.add(owner);
            } else {
                int owner = owners.remove(random.nextInt(owners.size()));
                int[] at = where.remove(owner);
                int moved = slabs.remove(at[0], at[1]);
                if (moved >= 0) {
                    where.get(moved)[1] = at[1];
                }
            }
        }

        assertThat(slabs.size()).isEqualTo(owners.size()).isGreaterThan(5 * RecordSlabs.PER_CHUNK);
        for (int owner : owners) {
            int[] at = where.get(owner);
            assertThat(slabs.copy(at[0], at[1], new long[at[0]])).containsExactly(recordOf(owner));
            assertThat(slabs.word(at[0], at[1], 1)).isEqualTo(recordOf(owner)[1]);
        }
    }

    private static long[] recordOf(int owner) {
        long[] rec = new long[StateTemplates.HEADER + owner % 3];
        for (int i = 0; i < rec.length; i++) {
            rec[i] = owner * 1_000L + i;
        }
        return rec;
    }
}
