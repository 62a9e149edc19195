//! Numbers as FO(·) writes them, dates included: IDP-Z3 counts a date `#2021-01-31` as its
//! day number (the proleptic Gregorian ordinal, day 1 being 0001-01-01), so that `d + 1` is the
//! next day; `#TODAY` is the date the file is read.

/// A number read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    Int(i64),
    Float(f64),
    /// Too large, or not a date.
    Bad,
}

/// The number a literal's text stands for (spaces between a sign and the digits allowed).
pub fn number(text: &str) -> Number {
    let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if let Some(date) = text.strip_prefix('#') {
        return date_number(date).map_or(Number::Bad, Number::Int);
    }
    if text.contains('.') {
        text.parse().map_or(Number::Bad, Number::Float)
    } else {
        text.parse().map_or(Number::Bad, Number::Int)
    }
}

/// The day number of `YYYY-MM-DD` or `TODAY`.
fn date_number(text: &str) -> Option<i64> {
    if text == "TODAY" {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_secs();
        return Some(secs as i64 / 86_400 + UNIX_DAY);
    }
    let mut parts = text.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, d) = (parts.next()??, parts.next()??, parts.next()??);
    let valid = (1..=12).contains(&m) && (1..=31).contains(&d);
    let day = days_from_civil(y, m, d) + UNIX_DAY;
    (valid && civil_from_days(day - UNIX_DAY) == (y, m, d)).then_some(day)
}

/// The day number of 1970-01-01.
const UNIX_DAY: i64 = 719_163;

/// `#YYYY-MM-DD` for a day number, as IDP-Z3 prints a date.
pub fn date_text(day: i64) -> String {
    let (y, m, d) = civil_from_days(day - UNIX_DAY);
    format!("#{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 of a Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The Gregorian date of a number of days since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_day_numbers_as_python_counts_them() {
        // date(2023, 6, 15).toordinal() == 738686 in Python.
        assert_eq!(number("#2023-06-15"), Number::Int(738_686));
        assert_eq!(number("#0001-01-01"), Number::Int(1));
        assert_eq!(date_text(738_687), "#2023-06-16");
        assert_eq!(number("#2023-02-30"), Number::Bad);
        assert_eq!(number("- 3"), Number::Int(-3));
        assert_eq!(number("2.5"), Number::Float(2.5));
    }
}
