//! This binding's layout lines, as the C layout program prints the system
//! headers': `STRUCT sizeof N`, `STRUCT.FIELD offset N`, `NAME value N`.

fn main() {
    for (name, size, fields) in rdmaverbs_sys::layout() {
        println!("{name} sizeof {size}");
        for (field, offset) in fields {
            println!("{name}.{field} offset {offset}");
        }
    }
    for (name, value) in rdmaverbs_sys::CONSTANTS {
        println!("{name} value {value}");
    }
}
