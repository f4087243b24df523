package org.rdmaverbs;

import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import java.util.List;

/** The base of the binding's structs: a JNA Structure whose field order and
 * offsets can be read (for the layout check). */
public abstract class Struct extends Structure {
    protected Struct() {}

    protected Struct(Pointer p) {
        super(p);
    }

    /** The fields, in the C order. */
    public List<String> fields() {
        return getFieldOrder();
    }

    /** A field's offset. */
    public int offsetOf(String field) {
        return fieldOffset(field);
    }
}
