package org.rdmaverbs;

import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import java.util.List;

/** The base of the binding's structs: a JNA Structure whose field order and
 * offsets can be read (for the layout check). */
public abstract class Struct extends Structure implements Shape {
    protected Struct() {}

    protected Struct(Pointer p) {
        super(p);
    }

    @Override
    public List<String> fields() {
        return getFieldOrder();
    }

    @Override
    public int offsetOf(String field) {
        return fieldOffset(field);
    }
}
